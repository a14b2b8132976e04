import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { renderApprovalEmail } from '../../notify/email.js';
import type { ApprovalView } from '../../protocol/index.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { attemptsOf, toolMessage as readToolMessage, unknownRestart } from '../support/unknown-restart.js';
import { answerLinkIn, recipient, startMailbox, type Mailbox } from './mailbox.js';

/**
 * The email for an outcome approval (nobody knows whether a call happened): it says so plainly,
 * shows the arguments that ran and the attempt, and its links answer "it did not happen: run it
 * again" and "it failed"; "it happened" needs a result, given in the inbox.
 */

const AGAIN = 'It did not happen: run it again';
const FAILED = 'It failed';
const HAPPENED = 'It happened: answer in the inbox with its result';

describe('rendering', () => {
  const view: ApprovalView = {
    trackingId: 'run-1.2',
    runId: 'run-1',
    agent: 'ops',
    kind: 'outcome',
    tool: 'restart_service',
    toolCallId: 'c1',
    args: { service: 'payments' },
    attempt: {
      attempt: 1,
      startedAt: '2026-11-25T10:00:00.000Z',
      worker: '4242@worker-7',
      // The step is the tool's text: it must not forge a line (a link of its own).
      progress: {
        step: 'request sent\nIt failed:\n  https://evil.example/x',
        at: '2026-11-25T10:00:01.000Z',
      },
      reason: 'the tool could not tell: no confirmation',
    },
    description: 'Nobody knows whether this happened: restart_service {"service":"payments"}',
    schema: { type: 'object' },
    allowedDecisions: ['respond', 'approve', 'reject'],
    approvers: ['operator'],
    requiredApprovals: 1,
    requirements: [{ roles: ['operator'], count: 1, reason: 'restart_service: its policy' }],
    revision: 1,
    approvals: [],
    requester: 'sam',
    allowSelfApproval: false,
    requestedAt: '2026-11-25T10:00:05.000Z',
    deadline: '2026-11-26T10:00:05.000Z',
    onTimeout: { action: 'reject' },
    escalated: false,
    status: 'pending',
  };
  const links = { approve: 'https://cs/links/a', reject: 'https://cs/links/r', inbox: 'https://cs/#/x' };
  const mail = renderApprovalEmail(view, { id: 'olga', name: 'Olga', roles: ['operator'] }, links);

  test('says nobody knows whether it happened, and shows the arguments that ran and the attempt', () => {
    assert.equal(
      mail.subject,
      '[Countersign] Agent ops does not know whether this call happened: restart_service',
    );
    assert.match(
      mail.text,
      /\nIts attempt ended without the tool saying how\. It is not run again unless someone says it did not happen\. With no answer by the deadline, the call counts as failed; it is never run again\.\n/,
    );
    assert.match(mail.text, /Answer before: 2026-11-26T10:00:05\.000Z/);
    assert.match(mail.text, /Arguments it ran with:\n\{\n {2}"service": "payments"\n\}/);
    assert.match(
      mail.text,
      /The attempt:\nAttempt: 1\nStarted: 2026-11-25T10:00:00\.000Z\nWorker: 4242@worker-7\nLast step: request sent\\nIt failed:\\n {2}https:\/\/evil\.example\/x \(at 2026-11-25T10:00:01\.000Z\)\nWhy unknown: the tool could not tell: no confirmation\n/,
    );
  });

  test('its links read as answers: run it again, it failed, and "it happened" in the inbox', () => {
    assert.match(
      mail.text,
      /What happened\?\nIt did not happen: run it again:\n {2}https:\/\/cs\/links\/a\nIt failed:\n {2}https:\/\/cs\/links\/r\nIt happened: answer in the inbox with its result:\n {2}https:\/\/cs\/#\/x\n/,
    );
    assert.doesNotMatch(mail.text, /^(Approve|Reject|Open in the inbox):/m);
    // The tool's step forged no link line: the only link lines are the real ones.
    assert.deepEqual(
      mail.text.match(/^ {2}https?:\S+$/gm),
      [links.approve, links.reject, links.inbox].map((l) => `  ${l}`),
    );
    for (const label of [AGAIN, FAILED, HAPPENED]) assert.ok(mail.html.includes(`>${label}</a>`), label);
    assert.ok(!mail.html.includes('>Approve</a>'));
  });

  test('a call approval keeps its Approve and Reject links', () => {
    const callMail = renderApprovalEmail(
      { ...view, kind: 'call', attempt: undefined },
      { id: 'olga', roles: [] },
      links,
    );
    assert.match(callMail.text, /^Approve: https:\/\/cs\/links\/a$/m);
    assert.match(callMail.text, /^Reject: https:\/\/cs\/links\/r$/m);
    assert.match(callMail.text, /^Decide before: /m);
    assert.doesNotMatch(callMail.text, /without the tool saying how/);
  });
});

describe('through the stack', () => {
  let stack: Stack;
  let mailbox: Mailbox;
  before(async () => {
    mailbox = await startMailbox();
    stack = await startStack({ smtpUrl: mailbox.url });
  });
  after(async () => {
    await stack?.close();
    await mailbox?.close();
  });

  const post = (link: string, form: Record<string, string> = {}) =>
    fetch(link, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });

  /**
   * Bob asks for a restart, alice (admin) approves it over REST; its attempt ends unknown and the
   * outcome approval is mailed to her.
   */
  async function mailedOutcome(input: string) {
    const { runId, service, outcome } = await unknownRestart(stack, input, async (trackingId) => {
      const approved = await stack.http('POST', `/api/approvals/${trackingId}/decision`, {
        token: tokens.alice,
        body: { type: 'approve' },
      });
      assert.equal(approved.status, 200, approved.text);
    });
    const trackingId = outcome.trackingId;
    const mail = await mailbox.waitFor(
      (m: ParsedMail) =>
        recipient(m) === 'alice@example.com' && (m.text ?? '').includes(`Tracking id: ${trackingId}`),
    );
    return { runId, service, trackingId, mail };
  }

  const toolMessage = (runId: string) => readToolMessage(stack, runId);

  test('the mail shows the attempt; its "run it again" link makes the run attempt the tool again', async () => {
    const { runId, service, trackingId, mail } = await mailedOutcome('outcome mail: again');
    assert.match(mail.subject ?? '', /does not know whether this call happened: restart_service/);
    assert.match(mail.text ?? '', new RegExp(`"service": "${service}"`));
    assert.match(mail.text ?? '', new RegExp(`Last step: restart of ${service} requested \\(at `));
    assert.match(
      mail.text ?? '',
      new RegExp(`Why unknown: the tool could not tell: ${service} did not confirm`),
    );
    assert.equal(answerLinkIn(mail, HAPPENED), `${stack.url}/#/approvals/${encodeURIComponent(trackingId)}`);

    const link = answerLinkIn(mail, AGAIN);
    const page = await fetch(link);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<title>It did not happen: run it again\? · Countersign<\/title>/);
    assert.match(html, /Nobody knows whether this happened: /);
    assert.match(html, /Its attempt ended without the tool saying how\./);
    assert.match(html, new RegExp(`restart of ${service} requested`));
    assert.match(html, /The tool runs once more with the same arguments/);
    assert.match(html, /<button type="submit" class="approve">It did not happen: run it again<\/button>/);
    assert.match(html, /It happened\? <a href="[^"]+">Answer in the inbox with its result<\/a>/);
    assert.equal(attemptsOf(runId), 1, 'opening the link changes nothing');

    const confirmed = await post(link);
    assert.equal(confirmed.status, 200);
    assert.match(await confirmed.text(), /Running it again/);
    assert.equal(await toolMessage(runId), JSON.stringify({ restarted: service }));
    assert.equal(attemptsOf(runId), 2);
    assert.equal((await post(link)).status, 409);
  });

  test('its "it failed" link asks what is known, which the model is told; nothing runs again', async () => {
    const { runId, mail } = await mailedOutcome('outcome mail: failed');
    const link = answerLinkIn(mail, FAILED);
    const html = await (await fetch(link)).text();
    assert.match(html, /<title>It failed\? · Countersign<\/title>/);
    assert.match(html, /What you know of it \(the agent is told\)/);
    assert.match(html, /<button type="submit" class="reject">It failed<\/button>/);
    const failed = await post(link, { message: 'The service never came back.' });
    assert.equal(failed.status, 200);
    assert.match(await failed.text(), /Recorded: it failed/);
    assert.match(
      await toolMessage(runId),
      /failed: its outcome was unknown and alice said it did not complete: The service never came back\./,
    );
    assert.equal(attemptsOf(runId), 1);
  });
});
