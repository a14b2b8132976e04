import { test } from 'node:test';
import { oldest, project, scenario, SHARED } from './shapes.js';

/** The oldest SDK, zod and express our peer ranges allow, installed beside the packed tarball. */
test('the oldest SDK, zod and express our peer ranges allow: one copy of each, and a run approved', async (t) => {
  const dir = project(t, 'oldest', Object.fromEntries(SHARED.map((name) => [name, oldest(name)])));
  await scenario(dir, process.execPath, 'rest');
});
