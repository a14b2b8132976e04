import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { DevServerPortTaken, startTemporalDevServer } from '../../temporal/dev-server.js';

// A port picked for the dev server can be taken by another process before the server binds it; the
// server then panics, saying so first and printing a long Go stack after. Seen in CI: the reason had
// scrolled out of the lines kept, so the start was not tried again on another port.

const dir = mkdtempSync(path.join(tmpdir(), 'countersign-dev-server-start-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for the CLI that panics as the server does on a taken port, counting its starts. */
function panickingServer(): { executable: string; starts: () => number } {
  const count = path.join(dir, 'starts');
  writeFileSync(count, '');
  const executable = path.join(dir, 'temporal');
  const stack = Array.from({ length: 120 }, (_, i) => `\tgo.temporal.io/server/frame${i}(...)`).join('\n');
  writeFileSync(
    executable,
    `#!/bin/sh\necho start >> '${count}'\ncat >&2 <<'EOF'\npanic: listen tcp 127.0.0.1:7233: bind: address already in use\n\ngoroutine 1 [running]:\n${stack}\nEOF\nexit 2\n`,
  );
  chmodSync(executable, 0o755);
  return { executable, starts: () => readFileSync(count, 'utf8').split('\n').filter(Boolean).length };
}

test('a port taken as the server binds it is told apart by the panic, however long its stack, and picked again', async () => {
  const server = panickingServer();
  const err = await startTemporalDevServer({ executable: server.executable, startTimeoutMs: 10_000 }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(err instanceof DevServerPortTaken, String(err));
  assert.match(err.message, /address already in use/);
  assert.equal(server.starts(), 5);
});
