import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { codeBlocks, docFiles, root, type CodeBlock } from './doc-files.js';

/**
 * What the docs' examples take as given: the reader's own services, and values an earlier example
 * on the same page made. An example that declares one of these names itself uses its own.
 */
const givens = `
declare const payments: {
  refund(request: { order?: string; orderId?: string; amount: number; idempotencyKey: string }): Promise<{ id: string }>;
  pay(request: { invoice: string; amount: number; idempotencyKey: string }): Promise<{ id: string }>;
};
declare const sessions: {
  userOf(cookie: string | undefined): Promise<{ email: string; groups: string[] } | undefined>;
};
declare const manager: {
  requestRestart(service: string): Promise<{ confirmation(): Promise<{ service: string; state: 'active' | 'failed' }> }>;
};
declare const reporting: {
  connect(login: { user: string; password: string | undefined }): Promise<{ run(report: string): Promise<string> }>;
};
declare const support: ReturnType<typeof import('countersign').defineAgent>;
declare const analyst: ReturnType<typeof import('countersign').defineAgent>;
declare const connection: import('@temporalio/worker').NativeConnection;
declare const client: import('@temporalio/client').Client;
declare const model: Parameters<typeof import('countersign/worker').createWorker>[0]['model'];
declare const app: import('express').Express;
declare const apiOptions: Parameters<typeof import('countersign/api').createApi>[0];
declare const rest: Omit<Parameters<typeof import('countersign/api').countersignRouter>[0], 'client' | 'agents'>;
declare const fake: import('countersign/testing').FakeModel;
declare const runId: string;
declare function notifyOwner(runId: string): Promise<void>;
`;

/** Where each block is compiled: a file beside the page that does not exist, named for the page and line. */
const fileOf = (block: CodeBlock) => join(root, `${block.doc}.${block.line}.${block.lang}`);
const givensFile = join(root, 'docs', 'givens.d.ts');

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  assert.equal(config.error, undefined, 'tsconfig.json reads');
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root, undefined, configPath).options;
}

const blocks = docFiles().flatMap(codeBlocks);

/** The type errors of the examples, each compiled as a module of its own beside the givens. */
function typeErrors(examples: CodeBlock[], options: ts.CompilerOptions): string[] {
  // `export {}` makes each block a module of its own, whose names shadow the givens.
  const virtual = new Map<string, string>([
    [givensFile, givens],
    ...examples.map((block): [string, string] => [fileOf(block), `${block.code}\nexport {};\n`]),
  ]);
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const text = virtual.get(file);
    return text === undefined
      ? getSourceFile.call(host, file, language, ...rest)
      : ts.createSourceFile(file, text, language);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  return [...virtual.keys()].flatMap((file) => {
    const source = program.getSourceFile(file)!;
    const block = examples.find((candidate) => fileOf(candidate) === file);
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
      (diagnostic) => {
        const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const where = block ? `${block.doc}:${block.line + 1 + line}` : `the givens, line ${line + 1}`;
        return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ')}`;
      },
    );
  });
}

test('code blocks are labelled ts, tsx, sh or json (or not at all), so no TypeScript goes unchecked', () => {
  const others = blocks.filter((block) => !['ts', 'tsx', 'sh', 'json', ''].includes(block.lang));
  assert.deepEqual(
    others.map((block) => `${block.doc}:${block.line}: ${block.lang}`),
    [],
  );
});

test('every ts code block in the README and docs/ type-checks against the package', () => {
  const examples = blocks.filter((block) => block.lang === 'ts');
  assert.ok(examples.length >= 15, `found only ${examples.length} ts blocks`);
  const failures = typeErrors(examples, compilerOptions());
  assert.deepEqual(failures, [], `${failures.length} type errors:\n${failures.join('\n')}`);
});

test("every tsx code block (a chat page) type-checks with React's JSX, in a browser", () => {
  const examples = blocks.filter((block) => block.lang === 'tsx');
  assert.ok(examples.length >= 1, `found only ${examples.length} tsx blocks`);
  const options = compilerOptions();
  const failures = typeErrors(examples, {
    ...options,
    jsx: ts.JsxEmit.ReactJSX,
    lib: [...(options.lib ?? []), 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  });
  assert.deepEqual(failures, [], `${failures.length} type errors:\n${failures.join('\n')}`);
});
