import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import type { Notifier } from '../../activities/notifier.js';
import { defineAgent, defineTool, toToolSpec } from '../../define/index.js';
import { renderApprovalEmail } from '../../notify/email.js';
import { createNotifier, recipientsFor } from '../../notify/notifier.js';
import { approvalCard } from '../../notify/slack/card.js';
import type { ApprovalView, ApproverIdentity } from '../../protocol/index.js';
import { evaluatePolicy } from '../../workflows/evaluate-policy.js';
import { ReminderClock, type DueReminder } from '../../workflows/reminders.js';
import { startTestWorker, type TestWorker } from '../support/worker.js';
import type { ReminderNote } from '../../workflows/activity-types.js';
import { call, calls, say } from '../support/fake-model.js';
import {
  startTimeSkippingHarness,
  uniqueInput,
  waitFor,
  type TimeSkippingHarness,
} from './fixtures/harness.js';

// Reminders at their real lengths, on Temporal's time-skipping test server. Every time checked is
// workflow time: when the workflow scheduled each notification, as its activity reports it.

const MINUTE = 60_000;
const DEADLINE_SECONDS = 2 * 3600;

const treasury: ApproverIdentity[] = [
  { id: 'tara', roles: ['treasury'] },
  { id: 'theo', roles: ['treasury'] },
];

const wire = defineTool({
  name: 'wire_funds',
  description: 'Wire money out.',
  parameters: z.object({ to: z.string(), amount: z.number() }),
  approval: {
    approvers: ['treasury'],
    requiredApprovals: 2,
    deadlineSeconds: DEADLINE_SECONDS,
    remind: [{ beforeDeadlineSeconds: 600 }, { beforeDeadlineSeconds: 3600 }],
  },
  async execute(args) {
    return { wired: args.amount };
  },
});

const agent = defineAgent({
  name: 'reminded',
  description: 'Wires funds once treasury approves.',
  instructions: 'Wire funds.',
  tools: [wire],
});

/** Every notification, as the notifier was handed it: which approval, which reminder, when, to whom. */
const notified: {
  trackingId: string;
  reminder?: ReminderNote;
  at: number;
  deadline: number;
  to: string[];
}[] = [];
const notifier: Notifier = {
  async notify(approval, _progress, _edit, reminder) {
    notified.push({
      trackingId: approval.trackingId,
      ...(reminder ? { reminder } : {}),
      at: Context.current().info.scheduledTimestampMs,
      deadline: Date.parse(approval.deadline),
      to: recipientsFor(approval, treasury).map((a) => a.id),
    });
  },
};

/**
 * How long before the deadline a notification was scheduled, to the minute: the workflow schedules
 * it in the task its timer's firing starts, a few milliseconds of server time later.
 */
const minutesBefore = (deadline: number, at: number) => Math.ceil((deadline - at) / MINUTE);

const remindersOf = (trackingId: string) =>
  notified.filter((n) => n.trackingId === trackingId && n.reminder !== undefined);

describe('reminders before a deadline (time-skipping test server)', () => {
  let h: TimeSkippingHarness;
  let worker: TestWorker;
  before(async () => {
    const taskQueue = `reminders-${randomUUID()}`;
    h = await startTimeSkippingHarness({ worker: false, taskQueue });
    worker = await startTestWorker({
      address: h.address,
      namespace: h.namespace,
      taskQueue,
      agents: [agent],
      model: { baseUrl: h.fake.url, apiKey: 'test-key' },
      notifier,
    });
  });
  after(async () => {
    await worker?.stop();
    await h?.close();
  });

  it('reminds everyone still needed an hour and ten minutes before a two-hour deadline, once each', async () => {
    const input = uniqueInput('wire, nobody decides');
    h.fake.script(input, calls(call('wire_funds', { to: 'acme', amount: 900 }, 'w1')), say('not wired'));
    const runId = await h.start(agent, input);
    // Waiting on the result lets the server's clock run to each timer, and past the deadline.
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'not wired' });

    const [approval] = (await h.state(runId)).approvals;
    assert.equal(approval!.status, 'expired');
    const deadline = Date.parse(approval!.deadline);
    const sent = remindersOf(approval!.trackingId);
    assert.deepEqual(
      sent.map((n) => [n.reminder!.number, minutesBefore(deadline, n.at), n.to]),
      [
        [1, 60, ['tara', 'theo']],
        [2, 10, ['tara', 'theo']],
      ],
    );
    // The first notification, then the two reminders: nothing more.
    assert.equal(notified.filter((n) => n.trackingId === approval!.trackingId).length, 3);
  });

  it('reminds only who has not signed, and never after the approval settled', async () => {
    const input = uniqueInput('wire, signed and approved');
    h.fake.script(
      input,
      calls(call('wire_funds', { to: 'acme', amount: 900 }, 'w2')),
      // A second call keeps the run waiting past the first approval's last reminder.
      calls(call('wire_funds', { to: 'acme', amount: 5 }, 'w3')),
      say('done'),
    );
    const runId = await h.start(agent, input);
    const [first] = await h.waitForPending(runId, 1);
    await h.skip(30 * MINUTE);
    const signed = await h.decide(
      first!.trackingId,
      { type: 'approve' },
      { approver: { id: 'tara', roles: ['treasury'] } },
    );
    assert.equal(signed.status, 'pending', 'one of two sign-offs');

    // An hour before the deadline: theo alone is reminded, tara signed already.
    await h.skip(40 * MINUTE);
    const [reminded] = await waitFor(async () => {
      const sent = remindersOf(first!.trackingId);
      return sent.length === 1 ? sent : undefined;
    }, 'the first reminder');
    assert.equal(minutesBefore(Date.parse(first!.deadline), reminded!.at), 60);
    assert.deepEqual(reminded!.to, ['theo']);
    assert.equal(reminded!.reminder!.number, 1);

    const approved = await h.decide(
      first!.trackingId,
      { type: 'approve' },
      { approver: { id: 'theo', roles: ['treasury'] } },
    );
    assert.equal(approved.status, 'approved');
    // The second call waits its full two hours, past the first approval's ten-minute reminder.
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'done' });

    assert.equal(remindersOf(first!.trackingId).length, 1, 'no reminder after the approval settled');
    const second = (await h.state(runId)).approvals[1]!;
    assert.equal(second.status, 'expired');
    assert.deepEqual(
      remindersOf(second.trackingId).map((n) => minutesBefore(Date.parse(second.deadline), n.at)),
      [60, 10],
    );
    await h.saveHistory('deadline-reminders', runId);
  });
});

describe('reminders in a policy (validated where the tool is defined)', () => {
  const define = (approval: Parameters<typeof defineTool>[0]['approval']) => () =>
    defineTool({
      name: 'wire_funds',
      description: 'Wire money out.',
      parameters: z.object({ amount: z.number() }),
      approval,
      execute: async () => null,
    });

  it('takes reminders within the deadline, for a policy and for a tier', () => {
    const tool = define({
      deadlineSeconds: 7200,
      remind: [{ beforeDeadlineSeconds: 3600 }],
      when: { approve: { deadlineSeconds: 600, remind: [{ beforeDeadlineSeconds: 300 }] } },
    })();
    assert.deepEqual(tool.approval?.remind, [{ beforeDeadlineSeconds: 3600 }]);
    // A call in the tier is reminded as the tier says.
    const decision = evaluatePolicy(toToolSpec(tool), { amount: 1 });
    assert.equal(decision.verdict, 'approve');
    assert.deepEqual(decision.verdict === 'approve' && decision.tier.remind, [
      { beforeDeadlineSeconds: 300 },
    ]);
  });

  it('refuses a reminder at or after the deadline, or before the request', () => {
    assert.throws(
      define({ remind: [{ beforeDeadlineSeconds: 0 }] }),
      /a reminder must come before the deadline/,
    );
    assert.throws(
      define({ deadlineSeconds: 3600, remind: [{ beforeDeadlineSeconds: 3600 }] }),
      /a reminder 3600 seconds before a 3600-second deadline would come before the request/,
    );
    // A tier's shorter deadline holds the policy's reminders too.
    assert.throws(
      define({ remind: [{ beforeDeadlineSeconds: 3600 }], when: { approve: { deadlineSeconds: 600 } } }),
      /"when",\s*"approve",\s*"deadlineSeconds"|when\.approve\.deadlineSeconds/,
    );
    assert.throws(
      define({ when: { approve: { deadlineSeconds: 600, remind: [{ beforeDeadlineSeconds: 900 }] } } }),
      /a 600-second deadline/,
    );
  });

  it('refuses duplicates and too many', () => {
    assert.throws(
      define({ remind: [{ beforeDeadlineSeconds: 60 }, { beforeDeadlineSeconds: 60 }] }),
      /a second reminder 60 seconds before the deadline/,
    );
    assert.throws(
      define({ remind: [1, 2, 3, 4, 5, 6].map((n) => ({ beforeDeadlineSeconds: n * 60 })) }),
      /at most 5 reminders/,
    );
  });
});

describe('the reminder count of one approval (pure workflow code)', () => {
  const deadline = Date.parse('2026-01-01T12:00:00Z');
  const view = (revision: number, at = deadline) =>
    ({ revision, deadline: new Date(at).toISOString() }) as ApprovalView;
  const dueAt = (due: DueReminder | undefined) => due && [due.note.number, (deadline - due.at) / MINUTE];

  it('counts back from the deadline, and starts again, past reminders skipped, for a new revision or deadline', () => {
    const clock = new ReminderClock([{ beforeDeadlineSeconds: 3600 }, { beforeDeadlineSeconds: 600 }]);
    assert.deepEqual(dueAt(clock.due(view(1), deadline - 120 * MINUTE)), [1, 60]);
    clock.sent();
    assert.deepEqual(dueAt(clock.due(view(1), deadline - 60 * MINUTE)), [2, 10]);
    // An edit half an hour before the deadline: the hour's reminder is past, the ten minutes' to come.
    assert.deepEqual(dueAt(clock.due(view(2), deadline - 30 * MINUTE)), [2, 10]);
    clock.sent();
    assert.equal(clock.due(view(2), deadline - 10 * MINUTE), undefined);
    // An escalation with a deadline three hours on: both again, before it.
    const later = deadline + 170 * MINUTE;
    const due = clock.due(view(3, later), deadline - 10 * MINUTE);
    assert.deepEqual(due && [due.note.number, (later - due.at) / MINUTE], [1, 60]);
  });
});

describe('a reminder as the notifier sends it (email, Slack card, delivery keys)', () => {
  const pending: ApprovalView = {
    trackingId: 'run-r.1',
    runId: 'run-r',
    agent: 'reminded',
    kind: 'call',
    tool: 'wire_funds',
    toolCallId: 'w9',
    args: { to: 'acme', amount: 900 },
    description: 'Wire 900 to acme',
    schema: {},
    allowedDecisions: ['approve', 'reject'],
    approvers: ['treasury'],
    requiredApprovals: 2,
    requirements: [{ roles: ['treasury'], count: 2, reason: 'wire_funds: its policy' }],
    revision: 1,
    approvals: [
      { approver: 'tara', roles: ['treasury'], revision: 1, channel: 'api', at: '2026-01-01T10:30:00Z' },
    ],
    allowSelfApproval: false,
    requestedAt: '2026-01-01T10:00:00.000Z',
    deadline: '2026-01-01T12:00:00.000Z',
    onTimeout: { action: 'reject' },
    escalated: false,
    status: 'pending',
  };
  const reminder: ReminderNote = { number: 1, beforeDeadlineSeconds: 3600 };

  it('says it is a reminder, and when the deadline is, in the email and on the card', () => {
    const email = renderApprovalEmail(pending, treasury[1]!, { inbox: 'https://x/#', reminder: true });
    assert.match(
      email.subject,
      /^\[Countersign\] Reminder \(due by 2026-01-01T12:00:00\.000Z\): Agent reminded/,
    );
    assert.match(email.text, /Reminder: still waiting for you, due by 2026-01-01T12:00:00\.000Z/);
    assert.doesNotMatch(
      renderApprovalEmail(pending, treasury[1]!, { inbox: 'https://x/#' }).subject,
      /Reminder/,
    );
    const card = approvalCard(pending, 'https://x/#', undefined, true);
    const header = card.blocks[0] as { text: { text: string } };
    assert.match(header.text.text, /^Reminder: Agent reminded/);
    assert.match(JSON.stringify(card.blocks), /still waiting for a decision, due by <!date\^1767268800\^/);
  });

  it('delivers under keys of its own, to those who have not signed, and a retry skips what was sent', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reminders-'));
    const notifier = createNotifier({
      approvers: treasury.map((a) => ({ ...a, email: `${a.id}@example.com` })),
      signingSecret: 'a-test-signing-secret-of-enough-length',
      publicUrl: 'https://approvals.example.com',
      dataDir,
      mailFrom: 'Approvals <approvals@example.com>',
    });
    try {
      const sent: string[] = [];
      const progress = {
        sent,
        onSent: (key: string) => sent.push(key),
        onFailed: () => {},
        onPosted: () => {},
      };
      await notifier.notify(pending, progress, undefined, reminder);
      await notifier.notify(pending, progress, undefined, reminder);
      assert.deepEqual(sent, ['email:remind1:theo']);
      await notifier.notify({ ...pending, revision: 2 }, progress, undefined, { ...reminder, number: 2 });
      assert.deepEqual(sent, ['email:remind1:theo', 'email:r2-remind2:theo']);
      assert.deepEqual(readdirSync(join(dataDir, 'outbox')).length, 2);
    } finally {
      notifier.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
