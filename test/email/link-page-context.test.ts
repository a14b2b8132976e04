// Issue 40: what an email link's pages tell the approver. The confirmation page shows who must sign
// (each requirement's count and the rule that asked) and the deadline as a time, not a raw ISO
// string; the page of an approval already decided says how it ended, by whom, through which
// channel and when, opened or confirmed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { confirmPage, settledPage } from '../../api/link-pages.js';
import { requirementLines, visibleText, type ApprovalView, type RunEvent } from '../../protocol/index.js';
import { escapeHtml } from '../../notify/html.js';
import { call, calls, say } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { linkIn, recipient, startMailbox, type Mailbox } from './mailbox.js';

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

/** Victor (a viewer) starts a run of `agent`; alice (admin) and bob (treasurer) are mailed. */
async function mailed(agent: string, input: string, tool: string, args: Record<string, unknown>) {
  const runId = await stack.startRun(agent, input, tokens.victor, calls(call(tool, args)), say('Done.'));
  const [pending] = await stack.waitForPending(runId);
  const trackingId = pending!.trackingId;
  const to = (who: string) =>
    mailbox.waitFor((m: ParsedMail) => recipient(m) === who && (m.text ?? '').includes(trackingId));
  return { runId, trackingId, alice: await to('alice@example.com'), bob: await to('bob@example.com') };
}

const approvalOf = async (trackingId: string) =>
  (
    await stack.http<ApprovalView & { decisions: RunEvent[] }>('GET', `/api/approvals/${trackingId}`, {
      token: tokens.alice,
    })
  ).body;

const post = (link: string, form: Record<string, string> = {}) =>
  fetch(link, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });

/** Text as the pages show it: marked, then escaped. */
const shown = (text: string) => escapeHtml(visibleText(text));

/** The `<time>` a page writes for an instant: machine-readable, and in UTC with the zone named. */
const timeTag = (iso: string) =>
  new RegExp(`<time datetime="${iso.replace(/\./g, '\\.')}" data-local>[^<]+ UTC</time>`);

test('the confirmation page shows who must sign, the rule, and the deadline as a time', async () => {
  // A payout needs two of admin or treasurer: alice signs first, by her own link.
  const { trackingId, alice, bob } = await mailed('treasury', 'links: who must sign', 'payout', {
    supplier: 'acme',
    amount: 80,
  });
  assert.equal((await post(linkIn(alice, 'Approve'))).status, 200);

  const opened = await fetch(linkIn(bob, 'Approve'));
  assert.equal(opened.status, 200);
  const html = await opened.text();
  const view = await approvalOf(trackingId);
  const lines = requirementLines(view);
  assert.match(lines[0]!, /^admin or treasurer: 1 of 2 \(/);
  assert.ok(html.includes('<h2>Who must sign</h2>'), html);
  for (const line of lines)
    assert.ok(html.includes(`<li>${shown(line)}</li>`), `missing "${line}":\n${html}`);
  assert.ok(html.includes(shown(view.requirements[0]!.reason)), 'the rule that asked is not shown');
  assert.match(html, /Signed so far by alice\./);

  // The deadline: a time a person reads (in their own zone where the page's script runs), never the raw ISO.
  assert.match(html, new RegExp(`Decide before ${timeTag(view.deadline).source}`));
  assert.equal(html.includes(`before ${view.deadline}`), false, html);
  // The one script is allowed by its hash alone, and nothing from the run is in it.
  const script = /<script>([^<]*)<\/script>/.exec(html)?.[1];
  assert.ok(script, 'no script shows the time in the reader zone');
  const hash = createHash('sha256').update(script).digest('base64');
  const csp = opened.headers.get('content-security-policy') ?? '';
  assert.match(csp, new RegExp(`script-src 'sha256-${hash.replace(/[+/]/g, '\\$&')}';`));
  assert.equal((html.match(/<script/g) ?? []).length, 1);
});

test('a link to an approval already decided in the inbox says how, by whom, through which channel and when', async () => {
  const { trackingId, bob } = await mailed('bank', 'links: settled in the inbox', 'transfer', {
    from: 'ops',
    to: 'acme',
    amount: 1500,
  });
  const edited = await stack.http('POST', `/api/approvals/${trackingId}/decision`, {
    token: tokens.alice,
    headers: { 'x-countersign-channel': 'inbox' },
    body: { type: 'edit', args: { from: 'ops', to: 'acme', amount: 1200 } },
  });
  assert.equal(edited.status, 200, edited.text);
  const view = await approvalOf(trackingId);
  assert.equal(view.status, 'edited');
  const decided = view.decisions.find((e) => e.type === 'approval.decided')!;
  assert.deepEqual([decided.actor, decided.channel], ['alice', 'inbox']);

  const said = new RegExp(
    `Approved with edits by <strong>alice</strong> through the inbox at ${timeTag(decided.at).source}\\.`,
  );
  // Opened, and confirmed anyway: both say what became of it, and change nothing.
  for (const answer of [await fetch(linkIn(bob, 'Approve')), await post(linkIn(bob, 'Reject'))]) {
    assert.equal(answer.status, 409);
    const html = await answer.text();
    assert.match(html, /<h1>Already approved with edits<\/h1>/);
    assert.match(html, said);
    assert.match(html, /Nothing was changed\./);
    assert.doesNotMatch(html, /<form/);
  }
  assert.equal((await approvalOf(trackingId)).status, 'edited');
});

test('a link to an approval rejected by email names the channel and the reason', async () => {
  const { trackingId, alice, bob } = await mailed('bank', 'links: rejected by email', 'transfer', {
    from: 'ops',
    to: 'acme',
    amount: 1700,
  });
  assert.equal((await post(linkIn(bob, 'Reject'), { message: 'Wrong supplier.' })).status, 200);
  const decided = (await approvalOf(trackingId)).decisions.find((e) => e.type === 'approval.decided')!;
  const opened = await fetch(linkIn(alice, 'Approve'));
  assert.equal(opened.status, 409);
  const html = await opened.text();
  assert.match(html, /<h1>Already rejected<\/h1>/);
  assert.match(
    html,
    new RegExp(`Rejected by <strong>bob</strong> through an email link at ${timeTag(decided.at).source}\\.`),
  );
  assert.match(html, /“Wrong supplier\.”/);
});

test('what these pages add is marked as the rest of the page is: the rule, who signed, who decided', () => {
  const hostile = '\u202eexe.txt\u202c';
  const view: ApprovalView = {
    trackingId: 'run-1.1',
    runId: 'run-1',
    agent: 'bank',
    kind: 'call',
    tool: 'transfer',
    toolCallId: 'c1',
    args: { amount: 20 },
    description: 'Transfer 20',
    schema: {},
    allowedDecisions: ['approve', 'reject'],
    approvers: ['admin'],
    requiredApprovals: 2,
    requirements: [
      { roles: ['admin'], count: 2, reason: `transfer: memo is ${hostile}`, tier: `big${hostile}` },
    ],
    revision: 1,
    approvals: [
      {
        approver: `al${hostile}`,
        roles: ['admin'],
        revision: 1,
        channel: 'email',
        at: '2025-01-01T00:00:00.000Z',
      },
    ],
    allowSelfApproval: false,
    requestedAt: '2025-01-01T00:00:00.000Z',
    deadline: '2025-01-02T00:00:00.000Z',
    onTimeout: { action: 'reject' },
    escalated: false,
    status: 'pending',
  };
  const confirm = confirmPage(view, 'approve', 'Bob', 'https://inbox.example/');
  const settled = settledPage(
    {
      ...view,
      status: 'rejected',
      outcome: { status: 'rejected', by: [`al${hostile}`], at: '2025-01-01T00:00:00.000Z', message: hostile },
    },
    [],
    'https://inbox.example/',
  );
  for (const html of [confirm, settled]) {
    assert.equal(/[\u202a-\u202e]/.test(html), false, html);
    assert.ok(html.includes('\\u202eexe.txt\\u202c'), html);
  }
});
