import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFaultStack } from './support/fault-stack.js';
import {
  CONTENT_TYPES,
  IDEMPOTENCY_KEYS,
  QUERIES,
  SEGMENTS,
  nestedBodies,
  randomBody,
} from './support/fuzz-inputs.js';
import { seededRandom } from './support/random.js';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 400);
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

test(`fuzzing every route with ${REQUESTS} hostile requests gets only 4xx answers and the server stays up`, async (t) => {
  const random = seededRandom('fuzz');
  const fs = await startFaultStack();
  t.after(() => fs.close());
  const base = fs.stack.apiUrl;
  const token = fs.approvers[1]!.token;

  // Every documented route, plus the email-link routes and verbs nobody documented.
  const doc = (await (await fetch(`${base}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const routes: { method: string; path: string }[] = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })),
  );
  routes.push({ method: 'GET', path: '/links/{token}' }, { method: 'POST', path: '/links/{token}' });
  for (const path of Object.keys(doc.paths))
    routes.push({ method: random.pick(['DELETE', 'PUT', 'PATCH']), path });
  assert.ok(routes.length >= 12, `the OpenAPI document lists ${routes.length} operations`);

  const serverErrors: string[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const route = random.pick(routes);
    const path = route.path.replace(/\{[^}]+\}/g, () => random.pick(SEGMENTS)) + random.pick(QUERIES);
    const auth = random.pick([
      `Bearer ${token}`,
      `Bearer ${token}`,
      '',
      'Bearer',
      `Bearer ${'x'.repeat(9_000)}`,
      'Basic Zm9vOmJhcg==',
      `bearer ${token}\u0000`.replace('\u0000', ''),
    ]);
    const headers: Record<string, string> = {};
    if (auth) headers.authorization = auth;
    let body: string | undefined;
    let malformed = false;
    if (METHODS_WITH_BODY.has(route.method)) {
      const generated = randomBody(random);
      body = generated.text;
      malformed = generated.malformed;
      const type = random.pick(CONTENT_TYPES);
      if (type) headers['content-type'] = type;
    }
    if (random.next() < 0.2) headers['last-event-id'] = random.pick(SEGMENTS);
    // A few keys, reused across routes, approvals and bodies, and some no key may be.
    if (random.next() < 0.3) headers['idempotency-key'] = random.pick(IDEMPOTENCY_KEYS);
    if (random.next() < 0.2)
      headers['if-match'] = random.pick(['"1"', '"0"', '*', 'W/"1"', '"1", "2"', '"99999999999"']);
    const label = `${route.method} ${path.slice(0, 120)} body ${body?.slice(0, 60) ?? '-'}`;
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method: route.method,
        headers,
        body,
        signal: AbortSignal.timeout(60_000),
      });
    } catch (err) {
      serverErrors.push(`${label}: no answer (${(err as Error).message})`);
      continue;
    }
    // An event stream that opened is a healthy answer; reading it would never end.
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) await res.body?.cancel();
    else await res.arrayBuffer();
    if (res.status >= 500) serverErrors.push(`${label}: ${res.status}`);
    else if (malformed && res.status < 400 && route.path.startsWith('/api') && auth === `Bearer ${token}`) {
      serverErrors.push(`${label}: malformed body accepted with ${res.status}`);
    }
  }

  // And every route that takes a JSON body, with each deeply nested body, so none is left to chance.
  for (const route of routes.filter((r) => METHODS_WITH_BODY.has(r.method) && r.path.startsWith('/api'))) {
    const path = route.path.replace(/\{[^}]+\}/g, () => random.pick(['run-x', 'run-x.1', 'r1']));
    for (const body of nestedBodies(random)) {
      const res = await fetch(`${base}${path}`, {
        method: route.method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(60_000),
      });
      await res.arrayBuffer();
      if (res.status >= 500 || res.status < 400)
        serverErrors.push(`${route.method} ${path} nested body ${body.slice(0, 60)}: ${res.status}`);
    }
  }

  assert.deepEqual(serverErrors, []);
  const me = await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(me.status, 200);
  for (const role of ['temporal', 'worker', 'api'] as const)
    assert.equal(fs.stack.children.get(role)!.exited, false, `${role} died`);
});
