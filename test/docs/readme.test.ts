import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ApproversFile } from '../../protocol/index.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const jsonBlocks = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);

test('every approvers file the README shows is one Countersign loads', () => {
  const files = jsonBlocks.filter((block) => block.includes('"approvers"'));
  assert.ok(files.length >= 2, `found ${files.length}`);
  for (const file of files) {
    const parsed = ApproversFile.safeParse(JSON.parse(file));
    assert.ok(parsed.success, parsed.error?.message);
  }
});

test("the example policy's roles are all held by someone in the README's file for it", () => {
  const example = readme.slice(
    readme.indexOf('## Define your own agent'),
    readme.indexOf('## The command line'),
  );
  const roles = new Set(
    [...example.matchAll(/approvers: \[([^\]]*)\]/g)]
      .flatMap((m) => m[1]!.match(/'[^']+'/g) ?? [])
      .map((r) => r.slice(1, -1)),
  );
  const file = jsonBlocks.find((block) => example.includes(block))!;
  const held = new Set(ApproversFile.parse(JSON.parse(file)).approvers.flatMap((a) => a.roles));
  assert.deepEqual(
    [...roles].filter((role) => !held.has(role)),
    [],
  );
  // The large-refund tier needs two distinct finance approvers.
  assert.ok(
    ApproversFile.parse(JSON.parse(file)).approvers.filter((a) => a.roles.includes('finance')).length >= 2,
  );
});
