import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import { z } from 'zod';
import { countersignRouter } from '../../api/create-api.js';
import type { JsonSchema } from '../../protocol/index.js';
import { validateAgainstSchema } from '../../workflows/validate-args.js';
import { apiTestAgents, testApprovers, tokens } from '../support/api-agents.js';
import { launchChromium, signIn } from '../support/chromium.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * The inbox checks an edit as it is typed with the JSON Schema library the run checks every decision
 * with, served beside the inbox page: under whatever path the host mounts the router, here
 * `/approvals`. Its words are the inbox's own; its verdicts are those of the run and the tool's zod
 * schema.
 */

let stack: Stack;
let server: Server;
let inbox: string;
let browser: Browser;
let page: Page;

before(async () => {
  stack = await startStack();
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  inbox = `http://127.0.0.1:${(server.address() as AddressInfo).port}/approvals/`;
  const app = express();
  app.use(
    '/approvals',
    countersignRouter({
      client: stack.client,
      taskQueue: stack.taskQueue,
      agents: apiTestAgents,
      approvers: testApprovers,
      signingSecret: stack.signingSecret,
      publicUrl: inbox.slice(0, -1),
    }),
  );
  server.on('request', app);
  browser = await launchChromium();
  page = await browser.newPage();
  page.setDefaultTimeout(30_000);
});

after(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await stack?.close();
});

test('the JSON Schema library is served beside the mounted inbox, cached as its own scripts are', async () => {
  const library = await fetch(`${inbox}vendor/json-schema/index.js`);
  assert.equal(library.status, 200);
  assert.match(library.headers.get('content-type') ?? '', /^(text|application)\/javascript/);
  assert.match(await library.text(), /export \* from '\.\/validator\.js'/);
  const own = await fetch(`${inbox}js/app.js`);
  for (const header of ['cache-control', 'x-content-type-options']) {
    assert.equal(library.headers.get(header), own.headers.get(header), header);
  }
  assert.ok(library.headers.get('etag') && library.headers.get('last-modified'));
  // What the module imports resolves beside it.
  assert.equal((await fetch(`${inbox}vendor/json-schema/validator.js`)).status, 200);
});

type Part = { name: string; parts: Part[] };
const Part: z.ZodType<Part> = z.object({
  name: z.string().min(1),
  get parts() {
    return z.array(Part);
  },
});

const payment = z.strictObject({
  amount: z.number().positive().max(1_000_000).multipleOf(0.01),
  payee: z.email(),
  memo: z.string().max(10).optional(),
  priority: z.enum(['low', 'high']).optional(),
  lines: z.array(z.strictObject({ sku: z.string().regex(/^[A-Z]+-\d+$/), qty: z.int().min(1) })).min(1),
});
const line = { sku: 'A-1', qty: 1 };

/** Values and what the inbox says of them, path by path (`a.b.0`; '' is the value itself). */
const cases: { what: string; schema: z.ZodType; value: unknown; says: [string, string][] }[] = [
  {
    what: 'a valid payment, a price in cents among them',
    schema: payment,
    value: { amount: 19.99, payee: 'ap@example.com', lines: [line] },
    says: [],
  },
  {
    what: 'every field wrong',
    schema: payment,
    value: {
      amount: 0,
      payee: 'not an address',
      memo: 'far too long a memo',
      priority: 'urgent',
      lines: [{ sku: 'a1', qty: 0 }],
      approved: true,
    },
    says: [
      ['amount', 'must be more than 0'],
      // The email's pattern fails too: its format says what is wrong.
      ['payee', 'must be an email address'],
      ['memo', 'must have at most 10 characters'],
      ['priority', 'must be one of "low", "high"'],
      ['lines.0.sku', 'has the wrong format'],
      ['lines.0.qty', 'must be at least 1'],
      ['approved', 'is not a known field'],
    ],
  },
  {
    what: 'a fraction of a cent, and too much',
    schema: payment,
    value: { amount: 1_000_000.001, payee: 'ap@example.com', lines: [line] },
    says: [
      ['amount', 'must be at most 1000000'],
      ['amount', 'must be a multiple of 0.01'],
    ],
  },
  {
    what: 'nothing given',
    schema: payment,
    value: {},
    says: [
      ['amount', 'is required'],
      ['payee', 'is required'],
      ['lines', 'is required'],
    ],
  },
  {
    what: 'the wrong types',
    schema: payment,
    value: { amount: '5', payee: 'ap@example.com', lines: [] },
    says: [
      ['amount', 'must be number'],
      ['lines', 'must have at least 1 item'],
    ],
  },
  {
    what: 'a fault deep in a recursive schema (a $ref to the root)',
    schema: Part,
    value: { name: 'frame', parts: [{ name: 'wheel', parts: [{ name: '', parts: [] }] }] },
    says: [['parts.0.parts.0.name', 'must have at least 1 character']],
  },
  {
    what: 'none of the forms of a union',
    schema: z.object({ target: z.union([z.object({ host: z.string() }), z.object({ ip: z.ipv4() })]) }),
    value: { target: { ip: 'nowhere' } },
    says: [['target', 'does not match any allowed form']],
  },
  {
    what: 'a result that is not an object',
    schema: z.literal('done'),
    value: 'pending',
    says: [['', 'must be "done"']],
  },
];

test('the inbox says in its own words what the run and the tool refuse, and passes what they accept', async () => {
  await signIn(page, inbox, tokens.alice);
  const given = cases.map((c) => ({ schema: z.toJSONSchema(c.schema), value: c.value }));
  const said: { path: string; message: string }[][] = await page.evaluate(
    async ({ module, given }) => {
      const { validate } = await import(module);
      return given.map(({ schema, value }) => validate(schema, value));
    },
    { module: `${inbox}js/validate.js`, given },
  );
  cases.forEach((c, i) => {
    const problems = said[i]!;
    assert.deepEqual(problems.map((p) => [p.path, p.message]).sort(), [...c.says].sort(), c.what);
    // The verdict of the tool's zod schema (the API's check) and of the run's own check, whose
    // fields (it names those inside a union too) include every field the inbox names.
    assert.equal(c.schema.safeParse(c.value).success, problems.length === 0, `${c.what}: zod`);
    const run = validateAgainstSchema(given[i]!.schema as JsonSchema, c.value);
    assert.equal(run.length === 0, problems.length === 0, `${c.what}: the run`);
    const runFields = new Set(run.map((e) => e.path.split('/').slice(1).join('.')));
    for (const p of problems) assert.ok(runFields.has(p.path), `${c.what}: the run names ${p.path}`);
  });
});
