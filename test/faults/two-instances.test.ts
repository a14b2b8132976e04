// Two Countersign instances (each a worker and an API, each a process of its own) on one Temporal,
// as a team runs them behind a load balancer: with the settings they must share, whatever one
// started the other decides, opens, seals and reads; with one setting different, the instance that
// differs says which, and changes nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { ApprovalView, RunState } from '../../protocol/index.js';
import { readExecutions } from './support/executions.js';
import { dumpText, INSTANCE_AGENT, sharedLog } from './support/instance-agents.js';
import { startInstances, type Instance } from './support/instances.js';
import { linkTokens, waitForEmailIn } from './support/outbox.js';

type Detail = RunState & { audit: unknown[] };

async function startRun(via: Instance, input: string): Promise<string> {
  const started = await via.requester.send<{ runId: string }>('POST', '/api/runs', {
    agent: INSTANCE_AGENT,
    input,
  });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  return started.body.runId;
}

/** The run as `GET /api/runs/:runId` shows it through `via`, once `accept` holds. */
const detail = async (via: Instance, runId: string, accept: (run: Detail) => boolean) =>
  (
    await via.reviewer.retry<Detail>(
      'GET',
      `/api/runs/${runId}`,
      undefined,
      (r) => r.status === 200 && accept(r.body),
    )
  ).body;

const pendingOf = async (via: Instance, runId: string): Promise<ApprovalView> =>
  (await detail(via, runId, (run) => run.pending.length > 0)).pending[0]!;

const ended = (via: Instance, runId: string) =>
  detail(via, runId, (run) => ['completed', 'failed', 'cancelled'].includes(run.status));

const callsOf = (instance: Instance, runId: string) =>
  readExecutions(sharedLog(instance.dataDir)).filter((e) => e.runId === runId);

/** A decision on what the person saw: the revision they read. */
const decide = (via: Instance, approval: ApprovalView, body: Record<string, unknown>) =>
  via.reviewer.send('POST', `/api/approvals/${approval.trackingId}/decision`, body, {
    'if-match': `"${approval.revision}"`,
  });

const postLink = (via: Instance, token: string) =>
  fetch(`${via.stack.apiUrl}/links/${token}`, { method: 'POST' });

test('two instances with the settings they share are one Countersign; one setting different is named and refused', async (t) => {
  const cluster = await startInstances(t, 'two-instances');
  const a = await cluster.start('a', cluster.shared);
  const b = await cluster.start('b', cluster.shared);
  const other = (instance: Instance) => (instance === a ? b : a);
  const reviewer = cluster.approvers[1]!;

  // A REST decision through the other instance.
  const paid = await startRun(a, 'pay rest-1');
  const asked = await pendingOf(a, paid);
  const decided = await decide(b, asked, { type: 'approve' });
  assert.equal(decided.status, 200, JSON.stringify(decided.body));
  assert.equal((await ended(a, paid)).status, 'completed');
  assert.deepEqual(
    callsOf(a, paid).map((c) => c.approvedBy),
    [['reviewer']],
  );

  // An email link, posted to the instance whose worker did not send it.
  const linked = await startRun(b, 'pay link-1');
  const linkAsked = await pendingOf(b, linked);
  const sent = await waitForEmailIn([a.dataDir, b.dataDir], reviewer.email!, linkAsked.trackingId);
  const sender = sent.dataDir === a.dataDir ? a : b;
  const { approve } = linkTokens(sent.mail);
  assert.ok(approve, 'the email carries an approve link');
  assert.equal((await postLink(other(sender), approve)).status, 200);
  assert.equal((await ended(a, linked)).status, 'completed');
  assert.equal(callsOf(a, linked).length, 1);

  // A secret sealed by one API and opened by whichever worker runs the call.
  const reported = await startRun(a, 'report secret-1');
  const secretAsked = await pendingOf(a, reported);
  assert.equal(secretAsked.secret?.name, 'password');
  const password = randomBytes(12).toString('base64url');
  const supplied = await decide(b, secretAsked, { type: 'respond', secret: password });
  assert.equal(supplied.status, 200, JSON.stringify(supplied.body));
  assert.equal((await ended(b, reported)).status, 'completed');
  assert.deepEqual(
    callsOf(a, reported).map((c) => c.args.password),
    [password],
  );

  // A tool output over the inline limit, stored by one worker, read back through either API.
  const lines = 2_000;
  const dumped = await startRun(b, `dump ${lines}`);
  const dumpedRun = await ended(b, dumped);
  assert.equal(dumpedRun.status, 'completed');
  // The model read the output itself, not the reference to it.
  assert.match(dumpedRun.output ?? '', /^finished: line 0: checkout ok/);
  const [ref] = dumpedRun.storedOutputs ?? [];
  assert.ok(ref, 'the output went to the content store');
  for (const via of [a, b]) {
    const read = await fetch(`${via.stack.apiUrl}/api/runs/${dumped}/outputs/${encodeURIComponent(ref)}`, {
      headers: { authorization: `Bearer ${reviewer.token}` },
    });
    assert.equal(read.status, 200, `through ${via.name}`);
    assert.equal(await read.text(), dumpText(lines), `through ${via.name}`);
  }

  // One setting different: an API with another signing secret says so, and changes nothing.
  const otherSecret = await cluster.start(
    'other-signing-secret',
    { ...cluster.shared, signingSecret: cluster.newSettings('unused').signingSecret },
    ['api'],
  );
  const mismatched = await startRun(a, 'pay link-2');
  const mismatchAsked = await pendingOf(a, mismatched);
  const mismatchMail = await waitForEmailIn(
    [a.dataDir, b.dataDir],
    reviewer.email!,
    mismatchAsked.trackingId,
  );
  const mismatchLink = linkTokens(mismatchMail.mail).approve!;
  const refused = await postLink(otherSecret, mismatchLink);
  assert.equal(refused.status, 400);
  const page = await refused.text();
  assert.match(page, /another signing secret/);
  assert.match(page, /signing_secret_mismatch/);
  assert.equal((await pendingOf(otherSecret, mismatched)).trackingId, mismatchAsked.trackingId);
  assert.equal(callsOf(a, mismatched).length, 0, 'the refused link ran nothing');
  // The same link through an instance that shares the secret decides.
  assert.equal((await postLink(b, mismatchLink)).status, 200);
  assert.equal((await ended(otherSecret, mismatched)).status, 'completed');
  assert.equal(callsOf(a, mismatched).length, 1);

  // Another content store: the API says which setting, and serves nothing.
  const otherStore = await cluster.start(
    'other-content-store',
    { ...cluster.shared, contentDir: cluster.newSettings('other-store').contentDir },
    ['api'],
  );
  const unread = await fetch(
    `${otherStore.stack.apiUrl}/api/runs/${dumped}/outputs/${encodeURIComponent(ref)}`,
    { headers: { authorization: `Bearer ${reviewer.token}` } },
  );
  assert.equal(unread.status, 502);
  const unreadBody = (await unread.json()) as { error: { code: string; message: string } };
  assert.equal(unreadBody.error.code, 'content_store_mismatch');
  assert.match(unreadBody.error.message, /must share one contentStore/);

  // Other secret keys: the API seals with a key no worker holds; the call fails saying which key,
  // and the tool never runs with a wrong or empty secret.
  const { secretKeys } = cluster.newSettings('other-keys');
  const otherKeys = await cluster.start('other-secret-keys', { ...cluster.shared, secretKeys }, ['api']);
  const sealedElsewhere = await startRun(a, 'report secret-2');
  const sealedAsked = await pendingOf(a, sealedElsewhere);
  const sealed = await decide(otherKeys, sealedAsked, { type: 'respond', secret: password });
  assert.equal(sealed.status, 200, JSON.stringify(sealed.body));
  const failedCall = await ended(a, sealedElsewhere);
  const keyId = secretKeys.split(':')[0]!;
  assert.ok(
    JSON.stringify(failedCall.transcript).includes(
      `sealed with key \\"${keyId}\\", which this worker does not hold`,
    ),
    JSON.stringify(failedCall.transcript),
  );
  assert.match(JSON.stringify(failedCall.transcript), /must share the secret keys \(COUNTERSIGN_SECRET_KEYS/);
  assert.equal(callsOf(a, sealedElsewhere).length, 0, 'the tool never ran');
});
