import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// Issue 27: every name a user can import is documented where it is declared, with an example.
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const entryPoints = {
  countersign: 'index.ts',
  'countersign/workflow': 'workflow.ts',
  'countersign/testing': 'testing/index.ts',
  'countersign/worker': 'worker/index.ts',
  'countersign/client': 'client/index.ts',
  'countersign/api': 'api/index.ts',
  'countersign/dev': 'dev/index.ts',
  'countersign/mcp': 'mcp/index.ts',
};

function exportedDeclarations(): Map<string, ts.Declaration[]> {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  assert.equal(config.error, undefined, 'tsconfig.json reads');
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root, undefined, configPath);
  const files = Object.values(entryPoints).map((file) => join(root, file));
  const program = ts.createProgram(files, parsed.options);
  const checker = program.getTypeChecker();
  const found = new Map<string, ts.Declaration[]>();
  for (const [entry, file] of Object.entries(entryPoints)) {
    const source = program.getSourceFile(join(root, file));
    assert.ok(source, `${file} loads`);
    const module = checker.getSymbolAtLocation(source);
    assert.ok(module, `${file} is a module`);
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      found.set(`${entry}: ${exported.name}`, symbol.declarations ?? []);
    }
  }
  return found;
}

/** A TSDoc comment on the declaration says what it is (its text) and shows it (an `@example` with code). */
function documented(declaration: ts.Declaration): boolean {
  const describes = ts
    .getJSDocCommentsAndTags(declaration)
    .some((doc) => ts.isJSDoc(doc) && (ts.getTextOfJSDocComment(doc.comment) ?? '').trim() !== '');
  const shows = ts
    .getJSDocTags(declaration)
    .some(
      (tag) => tag.tagName.text === 'example' && /```ts\n/.test(ts.getTextOfJSDocComment(tag.comment) ?? ''),
    );
  return describes && shows;
}

test('every exported name has TSDoc with an @example where it is declared', () => {
  const exported = exportedDeclarations();
  assert.ok(exported.size > 50, `found only ${exported.size} exported names`);
  // A zod schema and its type share a name: a comment on either declaration documents both.
  const missing = [...exported]
    .filter(([, declarations]) => !declarations.some(documented))
    .map(([name]) => name);
  assert.deepEqual(
    missing,
    [],
    `${missing.length} exported names have no TSDoc description with an @example:\n  ${missing.join('\n  ')}`,
  );
});
