import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { renderApprovalEmail } from '../../notify/email.js';
import { signLink } from '../../notify/links.js';
import type { ApprovalView } from '../../protocol/index.js';
import { secretsReceived, tokens } from '../support/api-agents.js';
import { reportRun } from '../support/secret-runs.js';
import { startStack, type Stack } from '../support/stack.js';
import { linkIn, recipient, startMailbox, type Mailbox } from './mailbox.js';

/**
 * The email for a secret a tool needs (kind `secret`): it says what is needed and for which tool,
 * and how to supply it (the inbox, or the CLI, which reads it unechoed), with no decision link:
 * a secret never goes through an email link. A decision link made for one anyway is refused.
 */

describe('rendering', () => {
  const view: ApprovalView = {
    trackingId: 'run-7.3',
    runId: 'run-7',
    agent: 'dba',
    kind: 'secret',
    tool: 'run_report',
    toolCallId: 'c1',
    args: {},
    secret: { name: 'db_password', label: 'the reporting database password' },
    description: 'run_report needs the reporting database password',
    schema: { type: 'string', minLength: 1 },
    allowedDecisions: ['respond', 'reject'],
    approvers: ['admin'],
    requiredApprovals: 1,
    requirements: [
      { roles: ['admin'], count: 1, reason: 'run_report needs the reporting database password' },
    ],
    revision: 1,
    approvals: [],
    requester: 'bob',
    allowSelfApproval: true,
    requestedAt: '2026-11-25T10:00:05.000Z',
    deadline: '2026-11-26T10:00:05.000Z',
    onTimeout: { action: 'reject' },
    escalated: false,
    status: 'pending',
  };
  // Links a notifier might sign (the approval allows reject): the email must carry none of them.
  const links = { approve: 'https://cs/links/a', reject: 'https://cs/links/r', inbox: 'https://cs/#/x' };
  const mail = renderApprovalEmail(view, { id: 'alice', name: 'Alice', roles: ['admin'] }, links);

  test('says what is needed, for which tool, and how to supply it', () => {
    assert.equal(mail.subject, '[Countersign] Agent dba needs a secret from you for run_report');
    assert.match(
      mail.text,
      /\nSecret needed:\nthe reporting database password \(db_password\), for run_report\n/,
    );
    assert.match(mail.text, /\nSupply before: 2026-11-26T10:00:05\.000Z\n/);
    assert.match(mail.text, /A secret is never supplied through an email link\. Supply it in the inbox/);
    assert.match(mail.text, /\n {2}countersign respond run-7\.3\n/);
    assert.match(mail.text, /\nOpen in the inbox: https:\/\/cs\/#\/x\n/);
    assert.doesNotMatch(mail.text, /Arguments/);
    assert.match(mail.html, /<pre[^>]*>countersign respond run-7\.3<\/pre>/);
    assert.match(mail.html, /href="https:\/\/cs\/#\/x"/);
  });

  test('carries no decision link, in text or HTML, whatever links it is given', () => {
    for (const body of [mail.text, mail.html]) {
      assert.equal(body.includes('https://cs/links/'), false, body);
      assert.doesNotMatch(body, /\bApprove\b|\bReject\b/);
      assert.doesNotMatch(body, /Each link asks you to confirm/);
    }
  });

  test('shows what the secret unlocks: the arguments of the call it is for', () => {
    const forCall = renderApprovalEmail(
      { ...view, args: { report: 'revenue', database: 'sales' } },
      { id: 'alice', roles: ['admin'] },
      links,
    );
    assert.match(
      forCall.text,
      /\nArguments of the run_report call:\n\{\n {2}"report": "revenue",\n {2}"database": "sales"\n\}\n/,
    );
    assert.match(
      forCall.html,
      /<h3[^>]*>Arguments of the run_report call<\/h3><pre[^>]*>\{\n {2}&quot;report&quot;/,
    );
  });

  test('an ask_human secret shows the question', () => {
    const asked = renderApprovalEmail(
      {
        ...view,
        tool: 'sign_in',
        secret: { name: 'otp', label: 'the one-time code' },
        question: 'What is the code on your authenticator?',
        description: 'What is the code on your authenticator?',
      },
      { id: 'alice', roles: ['admin'] },
      links,
    );
    assert.match(asked.text, /\nQuestion:\nWhat is the code on your authenticator\?\n/);
    assert.match(asked.text, /\nSecret needed:\nthe one-time code \(otp\), for sign_in\n/);
    assert.equal(asked.text.includes('/links/'), false);
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

  /** Bob asks the dba agent for a report; alice (admin) is asked for the password by email. */
  async function mailedSecret(input: string) {
    const { runId, approval } = await reportRun(stack, input);
    const mail = await mailbox.waitFor(
      (m: ParsedMail) => recipient(m) === 'alice@example.com' && (m.text ?? '').includes(approval.trackingId),
    );
    return { runId, approval, mail };
  }

  const approvalOf = async (trackingId: string) =>
    (await stack.http<ApprovalView>('GET', `/api/approvals/${trackingId}`, { token: tokens.alice })).body;

  test('the email names the secret and the tool, points to the inbox, and has no decision link', async () => {
    const { approval, mail } = await mailedSecret('email: secret');
    const inbox = `${stack.url}/#/approvals/${encodeURIComponent(approval.trackingId)}`;
    assert.equal(mail.subject, '[Countersign] Agent dba needs a secret from you for run_report');
    const text = mail.text ?? '';
    assert.match(text, /Secret needed:\nthe reporting database password \(db_password\), for run_report/);
    assert.match(text, new RegExp(`countersign respond ${approval.trackingId.replace('.', '\\.')}`));
    assert.equal(linkIn(mail, 'Open in the inbox'), inbox);
    assert.ok(mail.html && mail.html.includes(`href="${inbox}"`));
    for (const body of [text, mail.html || '']) {
      assert.equal(body.includes('/links/'), false, `a decision link in:\n${body}`);
      assert.doesNotMatch(body, /^(Approve|Reject): /m);
    }
    // Bob asked and may not supply it: only admins are mailed.
    assert.ok(
      mailbox.messages
        .filter((m) => (m.text ?? '').includes(approval.trackingId))
        .every((m) => recipient(m) === 'alice@example.com'),
    );
  });

  test('a decision link signed for a secret is refused, opened or confirmed, and changes nothing', async () => {
    const { runId, approval } = await mailedSecret('email: forged secret link');
    const inbox = `${stack.url}/#/approvals/${encodeURIComponent(approval.trackingId)}`;
    const link = (action: 'approve' | 'reject') =>
      `${stack.url}/links/${signLink(stack.signingSecret, {
        trackingId: approval.trackingId,
        approverId: 'alice',
        action,
        expiresAt: Date.now() + 60_000,
        revision: approval.revision,
      })}`;
    for (const action of ['reject', 'approve'] as const) {
      const opened = await fetch(link(action));
      assert.equal(opened.status, 403, action);
      const page = await opened.text();
      assert.match(page, /Not through an email link/);
      assert.match(page, /A secret is never supplied, nor refused, through an email link/);
      assert.ok(page.includes(`href="${inbox}"`), page);
      assert.doesNotMatch(page, /<form/);

      const confirmed = await fetch(link(action), {
        method: 'POST',
        body: new URLSearchParams({ message: 'nobody' }),
        redirect: 'manual',
      });
      assert.equal(confirmed.status, 403, action);
      assert.match(await confirmed.text(), /Not through an email link/);
    }
    const still = await approvalOf(approval.trackingId);
    assert.equal(still.status, 'pending');
    assert.equal(still.revision, 1);
    const events = (await stack.state(runId)).events;
    assert.equal(
      events.some((e) => e.trackingId === approval.trackingId && e.type === 'approval.decided'),
      false,
      'a link decided the secret',
    );

    // Supplied where a secret is: the API (as the inbox and the CLI send it).
    const secret = `pw-${randomUUID()}`;
    const supplied = await stack.http('POST', `/api/approvals/${approval.trackingId}/decision`, {
      token: tokens.alice,
      body: { type: 'respond', secret },
    });
    assert.equal(supplied.status, 200, supplied.text);
    assert.equal((await stack.result(runId)).status, 'completed');
    assert.deepEqual(
      secretsReceived.filter((r) => r.runId === runId).map((r) => r.secrets.db_password),
      [secret],
    );
    // Settled, the link still decides nothing, and says so in the same words.
    const after = await fetch(link('reject'));
    assert.equal(after.status, 403);
    assert.match(await after.text(), /Not through an email link/);
  });
});
