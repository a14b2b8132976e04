import assert from 'node:assert/strict';
import { test } from 'node:test';
import { otherNodes } from '../support/node-versions.js';
import { newest, project, run, scenario, SHARED } from './shapes.js';

/**
 * The newest SDK, zod and express the registry serves, installed beside the packed tarball as the
 * README says: on Node 20 the run is approved in the mounted inbox in Chromium and its history
 * replayed; on Node 22 and 24 (PyPI's official builds) the same project loads its worker and
 * workflow bundle and gets a run approved.
 */
// Installing blocks the event loop: each run is a test of its own, so that its deadline counts
// from its own start.
let newestApp = '';
test('the newest SDK, zod and express the registry serves: one copy of each, and the project type-checks', (t) => {
  newestApp = project(t, 'newest', Object.fromEntries(SHARED.map((name) => [name, newest(name)])));
});

test('on Node 20, the newest shape gets its approval in the inbox mounted at /approvals, in Chromium', async () => {
  assert.ok(newestApp, 'the newest shape installed');
  await scenario(newestApp, process.execPath, 'chromium');
});

for (const node of otherNodes()) {
  test(`on Node ${node.major}, the newest shape loads its worker and bundle and gets a run approved`, async () => {
    assert.ok(newestApp, 'the newest shape installed');
    const version = run(node.path, ['--version'], newestApp).trim();
    assert.ok(version.startsWith(`v${node.major}.`), `${node.path} is Node ${node.major}: ${version}`);
    await scenario(newestApp, node.path, 'rest');
  });
}
