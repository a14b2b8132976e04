import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitServerBytes } from '../../bench/lib/server-bytes.js';

test("a paused run's bytes on the server: the mean of what the system wrote, and the server's own rest", () => {
  assert.deepEqual(
    splitServerBytes(
      [
        { history: 6000, memo: 700, searchAttributes: 800 },
        { history: 7000, memo: 900, searchAttributes: 800 },
      ],
      22_000,
    ),
    { sampled: 2, history: 6500, memo: 800, searchAttributes: 800, server: 13_900 },
  );
});

test('no run weighed, no split', () => {
  assert.equal(splitServerBytes([], 22_000), undefined);
});
