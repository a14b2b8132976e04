import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { createMailTransport } from '../../notify/transport.js';
import type { ApproverConfig } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { testApprovers, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { recipient, startMailbox, type Mailbox } from './mailbox.js';

/**
 * One approver's mail failing holds back nobody else's: a mailbox that does not exist is given up
 * on at once, one that says "try later" is retried, and nobody already mailed is mailed again.
 */

const treasurer = (id: string): ApproverConfig => ({
  id,
  email: `${id}@example.com`,
  roles: ['treasurer'],
  token: `${id}-token-0123456789abcdef`,
});
// Listed before those who can be mailed: their failures come first.
const approvers = [treasurer('gone'), treasurer('flaky'), ...testApprovers];

let stack: Stack;
let mailbox: Mailbox;
before(async () => {
  mailbox = await startMailbox((address, earlier) =>
    address === 'gone@example.com' ? 550 : address === 'flaky@example.com' && earlier === 0 ? 451 : undefined,
  );
  stack = await startStack({ smtpUrl: mailbox.url, approvers });
});
after(async () => {
  await stack?.close();
  await mailbox?.close();
});

test('a recipient refused for good, and one to try later, hold back no other, and none is mailed twice', async () => {
  const runId = await stack.startRun(
    'bank',
    'failing recipient: transfer',
    tokens.victor,
    calls(call('transfer', { from: 'ops', to: 'acme', amount: 1500 })),
    say('Done.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const mine = (to: string) =>
    mailbox.messages.filter((m) => recipient(m) === to && (m.text ?? '').includes(pending!.trackingId));
  // The notifications' activity is done: every delivery went through or was given up on.
  await waitFor(async () => {
    const events = (await stack.client.workflow.getHandle(runId).fetchHistory()).events ?? [];
    const scheduled = events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'requestApproval',
    );
    const completed = events.filter((e) =>
      scheduled.some(
        (s) => Number(s.eventId) === Number(e.activityTaskCompletedEventAttributes?.scheduledEventId),
      ),
    );
    return completed.length === 1 ? true : undefined;
  }, 'the notifications to be done');

  assert.equal(mine('alice@example.com').length, 1);
  assert.equal(mine('bob@example.com').length, 1);
  assert.equal(mine('flaky@example.com').length, 1);
  assert.equal(mine('gone@example.com').length, 0);
  const named = (to: string) => mailbox.recipients.filter((r) => r === to).length;
  // Refused for good: tried once. Asked to try later: tried again, once.
  assert.equal(named('gone@example.com'), 1);
  assert.equal(named('flaky@example.com'), 2);
  assert.equal(named('alice@example.com'), 1);
  assert.equal(named('bob@example.com'), 1);
});

test('an outbox file name is safe and bounded whatever the key, and distinct keys keep distinct files', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'countersign-outbox-'));
  const mail = createMailTransport({ dataDir });
  try {
    const message = { from: 'a@example.com', to: 'b@example.com', subject: 's', text: 't', html: '' };
    const keys = [
      `run.1-${'l'.repeat(300)}`,
      `run.1-${'l'.repeat(299)}m`,
      'run.1-lee@example.com',
      'run.1-lee#example.com',
      'run.1-../../escape',
      'run.1-plain',
    ];
    for (const fileKey of keys) await mail.send({ ...message, subject: fileKey, fileKey });
    const outbox = path.join(dataDir, 'outbox');
    const files = readdirSync(outbox);
    assert.equal(files.length, keys.length);
    for (const file of files) {
      assert.ok(Buffer.byteLength(file) <= 160, file);
      assert.match(file, /^[A-Za-z0-9_.-]+\.eml$/);
    }
    // A plain key names its file as it is.
    assert.ok(files.some((f) => f.endsWith('-run.1-plain.eml')));
    const subjects = await Promise.all(
      files.map(async (f) => (await simpleParser(readFileSync(path.join(outbox, f)))).subject),
    );
    assert.deepEqual(subjects.sort(), [...keys].sort());
  } finally {
    mail.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
