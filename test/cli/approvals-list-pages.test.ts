import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { runCli } from '../support/run-cli.js';

// The API's list answers, page after page: what the CLI asks for is what this test reads.
const asked: URL[] = [];
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://api');
  asked.push(url);
  const body = url.searchParams.get('pageToken') ? { approvals: [] } : { approvals: [], nextPageToken: 'p2' };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
});
let env: NodeJS.ProcessEnv;
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  env = { ...process.env, COUNTERSIGN_URL: `http://127.0.0.1:${port}`, COUNTERSIGN_TOKEN: 'test-token' };
});
after(() => {
  server.closeAllConnections();
  server.close();
});

async function list(...args: string[]): Promise<URL[]> {
  asked.length = 0;
  const result = await runCli(['approvals', 'list', ...args], env);
  assert.equal(result.code, 0, result.stderr);
  return [...asked];
}

test('approvals list reads pending approvals 1,000 runs a request, every page', async () => {
  const pending = await list();
  assert.deepEqual(
    pending.map((url) => [url.pathname, url.searchParams.get('limit'), url.searchParams.get('pageToken')]),
    [
      ['/api/approvals', '1000', null],
      ['/api/approvals', '1000', 'p2'],
    ],
  );
  // A limit given is the one asked for.
  assert.deepEqual(
    (await list('--limit', '5')).map((url) => url.searchParams.get('limit')),
    ['5', '5'],
  );
  // Decided ones: a page of the API's own size.
  const decided = await list('--status', 'decided');
  assert.equal(decided.length, 1);
  assert.equal(decided[0]!.searchParams.get('limit'), null);
});
