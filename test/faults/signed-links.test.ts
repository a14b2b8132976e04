import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { signLink } from '../../notify/links.js';
import { readExecutions } from './support/executions.js';
import { finalView, startPlannedRuns } from './support/fault-runs.js';
import { startFaultStack } from './support/fault-stack.js';
import { linkTokens, waitForEmail } from './support/outbox.js';
import { seededRandom } from './support/random.js';
import { rewriteLinkPayload } from '../support/link-tokens.js';

test('tampered, forged, expired and reused email links change nothing', async (t) => {
  const random = seededRandom('signed-links');
  const fs = await startFaultStack({ notify: true });
  t.after(() => fs.close());
  const [run] = await startPlannedRuns(fs, random, 1);
  const reviewer = fs.approvers[1]!;
  const mail = await waitForEmail(fs.dataDir, reviewer.email!, run!.trackingId);
  const { approve, reject } = linkTokens(mail);
  assert.ok(approve && reject, 'the email carries approve and reject links');

  const [payload, signature] = approve.split('.') as [string, string];
  const flipped = signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A');
  const farFuture = Date.now() + 3_600_000;
  const claims = { trackingId: run!.trackingId, action: 'approve' as const, expiresAt: farFuture };
  const bad: Record<string, { token: string; status: number }> = {
    'flipped signature': { token: `${payload}.${flipped}`, status: 400 },
    'action rewritten to reject': {
      token: rewriteLinkPayload(approve, (c) => (c.x = 'reject')),
      status: 400,
    },
    'approver rewritten': { token: rewriteLinkPayload(approve, (c) => (c.a = 'requester')), status: 400 },
    'signature spliced from the reject link': { token: `${payload}.${reject.split('.')[1]}`, status: 400 },
    truncated: { token: approve.slice(0, approve.length - 5), status: 400 },
    'extra segment': { token: `${approve}.x`, status: 400 },
    'signed with another secret': {
      token: signLink(randomBytes(32).toString('base64url'), { ...claims, approverId: reviewer.id }),
      status: 400,
    },
    expired: {
      token: signLink(fs.stack.signingSecret, {
        ...claims,
        approverId: reviewer.id,
        expiresAt: Date.now() - 1_000,
      }),
      status: 410,
    },
    'unknown approver': {
      token: signLink(fs.stack.signingSecret, { ...claims, approverId: 'mallory' }),
      status: 403,
    },
  };

  const base = fs.stack.apiUrl;
  const pending = async () =>
    (
      await fs.reviewers[0]!.send<{ status: string; decisions?: unknown[] }>(
        'GET',
        `/api/approvals/${run!.trackingId}`,
      )
    ).body.status;
  for (const [name, { token, status }] of Object.entries(bad)) {
    const shown = await fetch(`${base}/links/${token}`);
    assert.equal(shown.status, status, `GET ${name}`);
    assert.match(shown.headers.get('content-type') ?? '', /text\/html/, `GET ${name} answers with a page`);
    const submitted = await fetch(`${base}/links/${token}`, {
      method: 'POST',
      body: new URLSearchParams({ message: 'x' }),
    });
    assert.equal(submitted.status, status, `POST ${name}`);
    assert.equal(await pending(), 'pending', `${name} changed nothing`);
  }

  // A validly signed link for someone whose role may not decide: the workflow refuses it.
  const wrongRole = signLink(fs.stack.signingSecret, { ...claims, approverId: 'requester' });
  assert.equal((await fetch(`${base}/links/${wrongRole}`, { method: 'POST' })).status, 403);
  assert.equal(await pending(), 'pending');

  // Opening the genuine link (as a mail scanner would) only shows a confirmation page.
  const opened = await fetch(`${base}/links/${approve}`);
  assert.equal(opened.status, 200);
  assert.equal(await pending(), 'pending');

  const confirmed = await fetch(`${base}/links/${approve}`, { method: 'POST' });
  assert.equal(confirmed.status, 200);
  const reused = await fetch(`${base}/links/${approve}`, { method: 'POST' });
  assert.equal(reused.status, 409);
  const rejectAfter = await fetch(`${base}/links/${reject}`, { method: 'POST' });
  assert.equal(rejectAfter.status, 409);

  const view = await finalView(fs.reviewers[0]!, run!, Date.now() + 120_000);
  assert.equal(view.approvalStatus, 'approved');
  assert.equal(readExecutions(fs.executionsFile).filter((e) => e.kind === 'applied').length, 1);
});
