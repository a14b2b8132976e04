import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadApprovers } from '../../demo/config/approvers.js';

const dir = () => mkdtempSync(path.join(tmpdir(), 'countersign-approvers-'));

test('with no approvers file, an admin and a cfo are created, their tokens kept in <dataDir>', () => {
  const dataDir = dir();
  const first = loadApprovers({ dataDir });
  assert.deepEqual(
    first.approvers.map((a) => [a.id, a.roles]),
    [
      ['admin', ['admin']],
      // The large-transfer tier's second approver: without one, that tier could never be met.
      ['cfo', ['cfo']],
    ],
  );
  assert.ok(first.adminToken && first.adminToken.length >= 16);
  const file = path.join(dataDir, 'admin-token');
  assert.equal(first.adminTokenFile, file);
  assert.equal(readFileSync(file, 'utf8').trim(), first.adminToken);
  assert.equal(statSync(file).mode & 0o077, 0);
  assert.equal(loadApprovers({ dataDir }).adminToken, first.adminToken);
  const cfoFile = path.join(dataDir, 'cfo-token');
  assert.equal(first.cfoTokenFile, cfoFile);
  assert.equal(readFileSync(cfoFile, 'utf8').trim(), first.cfoToken);
  assert.equal(statSync(cfoFile).mode & 0o077, 0);
  assert.notEqual(first.cfoToken, first.adminToken);
  assert.equal(loadApprovers({ dataDir }).cfoToken, first.cfoToken);
});

test('an approvers file is validated: shape, duplicate ids, shared tokens', () => {
  const dataDir = dir();
  const file = path.join(dataDir, 'approvers.json');
  const approver = (id: string, token: string) => ({
    id,
    email: `${id}@example.com`,
    roles: ['admin'],
    token,
  });
  writeFileSync(
    file,
    JSON.stringify({
      approvers: [approver('ann', 'ann-token-0123456789'), approver('ben', 'ben-token-0123456789')],
    }),
  );
  const loaded = loadApprovers({ file, dataDir });
  assert.deepEqual(
    loaded.approvers.map((a) => a.id),
    ['ann', 'ben'],
  );
  assert.equal(loaded.adminToken, undefined);

  writeFileSync(file, JSON.stringify({ approvers: [approver('ann', 'short')] }));
  assert.throws(() => loadApprovers({ file, dataDir }), /at least 16 characters/);
  writeFileSync(
    file,
    JSON.stringify({
      approvers: [approver('ann', 'ann-token-0123456789'), approver('ann', 'other-token-0123456789')],
    }),
  );
  assert.throws(() => loadApprovers({ file, dataDir }), /listed twice/);
  writeFileSync(
    file,
    JSON.stringify({
      approvers: [approver('ann', 'same-token-0123456789'), approver('ben', 'same-token-0123456789')],
    }),
  );
  assert.throws(() => loadApprovers({ file, dataDir }), /share a token/);
  // Ids and roles go into Temporal list queries (who may read which runs): plain text only.
  for (const [id, role] of [
    ['ann\\', 'admin'],
    ['ann', 'ops\u001b'],
    ['ann\n', 'admin'],
  ]) {
    writeFileSync(
      file,
      JSON.stringify({ approvers: [{ ...approver(id!, 'ann-token-0123456789'), roles: [role] }] }),
    );
    assert.throws(() => loadApprovers({ file, dataDir }), /no control characters or backslashes/);
  }
});
