import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadApprovers } from '../../demo/config/approvers.js';
import { codeBlocks, docFiles, type CodeBlock } from './doc-files.js';

const docs = docFiles();
const approverFiles = docs
  .flatMap(codeBlocks)
  .filter((block) => block.lang === 'json' && block.code.includes('"approvers"'));
const work = mkdtempSync(join(tmpdir(), 'countersign-docs-approvers-'));
after(() => rmSync(work, { recursive: true, force: true }));

test('every approvers file the docs show is one npm start loads', () => {
  assert.ok(approverFiles.length >= 2, `found ${approverFiles.length}`);
  for (const block of approverFiles) {
    assert.doesNotThrow(
      () => loadApprovers({ file: written(block), dataDir: work }),
      `${block.doc}:${block.line}`,
    );
  }
});

test("the policies page's roles are all held by someone in its approvers file", () => {
  const page = docs.find((doc) => doc.path === 'docs/policies.md')!;
  const blocks = codeBlocks(page);
  const roles = new Set(
    blocks
      .filter((block) => block.lang === 'ts')
      .flatMap((block) => [...block.code.matchAll(/approvers: \[([^\]]*)\]/g)])
      .flatMap((m) => m[1]!.match(/'[^']+'/g) ?? [])
      .map((role) => role.slice(1, -1)),
  );
  assert.ok(roles.size >= 2, `found ${[...roles].join(', ')}`);
  const file = blocks.find((block) => block.lang === 'json' && block.code.includes('"approvers"'))!;
  const { approvers } = loadApprovers({ file: written(file), dataDir: work });
  const held = new Set(approvers.flatMap((approver) => approver.roles));
  assert.deepEqual(
    [...roles].filter((role) => !held.has(role)),
    [],
  );
  // The large-refund tier needs two distinct finance approvers.
  assert.ok(approvers.filter((approver) => approver.roles.includes('finance')).length >= 2);
});

/** The block as COUNTERSIGN_APPROVERS_FILE names one: a file on disk, for npm start's own loader. */
function written(block: CodeBlock): string {
  const file = join(work, `${block.doc.replaceAll('/', '-')}-${block.line}.json`);
  writeFileSync(file, block.code);
  return file;
}
