import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { simpleParser } from 'mailparser';
import { Running } from '../start/running.js';
import { waitFor } from '../support/wait-for.js';

/** Every demo agent's approve, edit and reject paths, through the REST API, with the offline demo model. */
let cs: Running;
before(async () => {
  cs = await Running.start();
});
after(() => cs.stop());

const TRANSFER = 'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444';
const APPLICATION =
  'Assess the loan application of Jane Doe: credit score 760, annual income $95,000, monthly debts $800, 6 years employed, requesting $20,000.';

describe('bank-transfer', () => {
  test('a small transfer runs at once', async () => {
    const runId = await cs.startRun(
      'bank-transfer',
      'Transfer $300 from 5555 5555 5555 4444 to 4000 0566 5566 5556',
    );
    const run = await cs.finished(runId);
    assert.equal(run.approvals.length, 0);
    // The model says what it does, and claims nothing of the policy.
    const said = run.transcript.find((m) => m.role === 'assistant' && m.tool_calls)?.content ?? '';
    assert.match(said, /Transferring \$300\.00 from 5555 5555 5555 4444 to 4000 0566 5566 5556\.$/);
    assert.doesNotMatch(said, /approv/);
    assert.match(
      run.output!,
      /Transferred \$300\.00 .* New balances: 5555 5555 5555 4444: \$2,700\.00, 4000 0566 5566 5556: \$800\.00/,
    );
  });

  test('approve: the transfer runs and the balances move', async () => {
    const runId = await cs.startRun('bank-transfer', TRANSFER);
    const approval = await cs.pendingOne(runId);
    assert.equal(approval.tool, 'transfer');
    assert.equal(approval.description, 'Transfer $2500 from 4242 4242 4242 4242 to 5555 5555 5555 4444');
    await cs.settle(approval.trackingId, { type: 'approve' });
    const run = await cs.finished(runId);
    assert.match(
      run.output!,
      /Transferred \$2,500\.00 .* 4242 4242 4242 4242: \$997,500\.00, 5555 5555 5555 4444: \$5,200\.00/,
    );
  });

  test('edit: the edited amount is what moves, and the answer says so', async () => {
    const runId = await cs.startRun('bank-transfer', TRANSFER);
    const approval = await cs.pendingOne(runId);
    const refused = await cs.decide(approval.trackingId, {
      type: 'edit',
      args: { ...approval.args, to: '4000 0566 5566 5556' },
    });
    assert.equal(refused.status, 400, 'the destination is not editable');
    const fraction = await cs.decide(approval.trackingId, {
      type: 'edit',
      args: { ...approval.args, amount: 0.001 },
    });
    assert.equal(fraction.status, 400, 'a tenth of a cent is no amount');
    assert.deepEqual((fraction.body as { error: { fields: unknown } }).error.fields, [
      { path: '/args/amount', message: 'whole cents: at most two decimal places' },
    ]);
    await cs.settle(approval.trackingId, { type: 'edit', args: { ...approval.args, amount: 2000 } });
    const run = await cs.finished(runId);
    assert.match(
      run.output!,
      /Transferred \$2,000\.00 .*changed the amount from \$2,500\.00 to \$2,000\.00.* 4242 4242 4242 4242: \$995,500\.00/,
    );
    const settled = run.audit.find((e) => e.type === 'approval.settled');
    assert.deepEqual(settled?.diff, [{ path: '/amount', before: 2500, after: 2000 }]);
  });

  test('a transfer that fails after an edit reports the amount that was tried, not the proposal', async () => {
    // Alan Turing's account holds $800 by now: short of either amount.
    const runId = await cs.startRun(
      'bank-transfer',
      'Transfer $2,500 from 4000 0566 5566 5556 to 5555 5555 5555 4444',
    );
    const approval = await cs.pendingOne(runId);
    await cs.settle(approval.trackingId, { type: 'edit', args: { ...approval.args, amount: 9_000 } });
    const run = await cs.finished(runId);
    assert.match(
      run.output!,
      /The transfer of \$9,000\.00 from 4000 0566 5566 5556 to 5555 5555 5555 4444 failed: insufficient funds.*changed the amount from \$2,500\.00 to \$9,000\.00/,
    );
    assert.doesNotMatch(run.output!, /transfer \$2,500\.00 .*failed/);
  });

  test('an edit into the large-transfer tier waits for the cfo, who completes it; one past the limit is refused', async () => {
    const runId = await cs.startRun('bank-transfer', TRANSFER);
    const approval = await cs.pendingOne(runId);
    const tooMuch = await cs.decide(approval.trackingId, {
      type: 'edit',
      args: { ...approval.args, amount: 2_000_000 },
    });
    assert.equal(tooMuch.status, 400, 'over the schema maximum');
    const large = await cs.decide(approval.trackingId, {
      type: 'edit',
      args: { ...approval.args, amount: 150_000 },
    });
    assert.ok(large.status === 200 || large.status === 202, JSON.stringify(large.body));
    const run = await cs.run(runId);
    assert.equal(run.status, 'waiting');
    const [pending] = run.pending;
    assert.deepEqual(
      pending!.requirements.map((r) => [r.roles, r.count, r.tier ?? null]),
      [
        [['treasury', 'admin'], 1, null],
        [['cfo', 'admin'], 2, 'large transfer'],
      ],
    );
    assert.match(pending!.requirements[1]!.reason, /amount over \$100,000/);
    // The admin's edit was one of the two: the second must come from someone else, the demo's cfo.
    const again = await cs.decide(approval.trackingId, { type: 'approve' });
    assert.equal(again.status, 409);
    assert.ok(cs.countersign.cfoToken);
    await cs.settle(approval.trackingId, { type: 'approve' }, cs.countersign.cfoToken);
    const done = await cs.finished(runId);
    assert.match(done.output!, /Transferred \$150,000\.00 .* 4242 4242 4242 4242: \$845,500\.00/);
    assert.deepEqual(
      done.audit.filter((e) => e.type === 'approval.decided').map((e) => e.actor),
      ['admin', 'cfo'],
    );
  });

  test('reject: nothing moves and the agent does not retry', async () => {
    const runId = await cs.startRun('bank-transfer', TRANSFER);
    const approval = await cs.pendingOne(runId);
    await cs.settle(approval.trackingId, { type: 'reject', message: 'Suspicious payee' });
    const run = await cs.finished(runId);
    assert.match(run.output!, /did not transfer \$2,500\.00.*Suspicious payee.*will not retry/);
    assert.equal(run.transcript.filter((m) => m.role === 'assistant' && m.tool_calls).length, 1);
    const check = await cs.startRun(
      'bank-transfer',
      'Transfer $1 from 4242 4242 4242 4242 to 5555 5555 5555 4444',
    );
    assert.match((await cs.finished(check)).output!, /4242 4242 4242 4242: \$845,499\.00/);
  });

  test("the walkthrough's pause and resume: the correction is read and the decided transfer reported", async () => {
    const runId = await cs.startRun('bank-transfer', TRANSFER);
    const approval = await cs.pendingOne(runId);
    const paused = await cs.api('POST', `/api/runs/${runId}/pause`, { message: 'Checking the payee first' });
    assert.equal(paused.status, 202, JSON.stringify(paused.body));
    await waitFor(
      async () => ((await cs.run(runId)).status === 'paused' ? true : undefined),
      'the run paused',
    );
    await cs.settle(approval.trackingId, { type: 'approve' });
    // A resume sent as the pause is taken may find the run not paused yet: send it again.
    await waitFor(async () => {
      const resumed = await cs.api('POST', `/api/runs/${runId}/resume`, {
        message: 'The payee is right; go ahead.',
      });
      return resumed.status === 202 ? true : undefined;
    }, 'the run resumed');
    const run = await cs.finished(runId);
    assert.match(
      run.output!,
      /^\[offline demo model\] You said “The payee is right; go ahead\.”, so I went on with the request\.\nTransferred \$2,500\.00 from 4242 4242 4242 4242 to 5555 5555 5555 4444\./,
    );
  });
});

describe('loan-approval', () => {
  test('approve: risk assessment runs at once, the officer approves the proposal', async () => {
    const runId = await cs.startRun('loan-approval', APPLICATION);
    const approval = await cs.pendingOne(runId);
    assert.equal(approval.tool, 'approve_loan');
    assert.equal(approval.args.applicant, 'Jane Doe');
    assert.ok(approval.approvers.includes('loan-officer'));
    await cs.settle(approval.trackingId, { type: 'approve' });
    assert.match(
      (await cs.finished(runId)).output!,
      /Loan loan-.* approved for Jane Doe: \$20,000\.00 over 60 months/,
    );
  });

  test('edit: the officer changes the terms', async () => {
    const runId = await cs.startRun('loan-approval', APPLICATION);
    const approval = await cs.pendingOne(runId);
    await cs.settle(approval.trackingId, {
      type: 'edit',
      args: { ...approval.args, amount: 15_000, termMonths: 36 },
    });
    const output = (await cs.finished(runId)).output!;
    assert.match(output, /\$15,000\.00 over 36 months/);
    assert.match(output, /adjusted the terms/);
  });

  test('reject: a weak application is proposed for decline, and the officer refuses that', async () => {
    const runId = await cs.startRun(
      'loan-approval',
      'Loan application from John Roe: credit score 580, income $30,000, monthly debts $1,400, employed for 1 year, requesting $40,000.',
    );
    const approval = await cs.pendingOne(runId);
    assert.equal(approval.tool, 'decline_loan');
    await cs.settle(approval.trackingId, { type: 'reject', message: 'Ask for a co-signer first' });
    assert.match(
      (await cs.finished(runId)).output!,
      /did not decline the loan.*co-signer.*No decision was recorded/,
    );
  });
});

/** What this process writes to stderr while `act` runs: what the `npm start` terminal shows. */
async function stderrDuring<T>(act: () => Promise<T>): Promise<{ value: T; written: string }> {
  const chunks: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    return write.call(process.stderr, chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    return { value: await act(), written: chunks.join('') };
  } finally {
    process.stderr.write = write;
  }
}

describe('ops', () => {
  test('read-only commands run at once on the simulated host', async () => {
    const runId = await cs.startRun('ops', 'How much disk space is left?');
    const run = await cs.finished(runId);
    assert.equal(run.approvals.length, 0);
    assert.match(run.output!, /`df -h` exited with 0 on web-1 \(simulated\)/);
  });

  test('approve: a restart waits for an operator, then runs', async () => {
    const runId = await cs.startRun('ops', 'Restart the worker service');
    const approval = await cs.pendingOne(runId);
    assert.equal(approval.args.command, 'systemctl restart worker');
    await cs.settle(approval.trackingId, { type: 'approve' });
    assert.match((await cs.finished(runId)).output!, /`systemctl restart worker` exited with 0/);
  });

  test('edit: the operator changes the command and its timeout', async () => {
    const runId = await cs.startRun('ops', 'Please clean up the rotated logs');
    const approval = await cs.pendingOne(runId);
    await cs.settle(approval.trackingId, {
      type: 'edit',
      args: { command: 'rm -f /var/log/app/app.log.2', cwd: '/var/log', timeoutSeconds: 10 },
    });
    const output = (await cs.finished(runId)).output!;
    assert.match(
      output,
      /`rm -f \/var\/log\/app\/app\.log\.2` \(an operator changed it from `rm -f \/var\/log\/app\/app\.log\.\*`\) exited with 0/,
    );
  });

  describe('restart_service: nobody knows whether the restart of payments happened', () => {
    /** The run's outcome approval, after its restart was approved and its attempt went unconfirmed. */
    async function unknownRestart() {
      const runId = await cs.startRun('ops', 'Restart the payments service');
      const seen = new Set<string>();
      const approval = await cs.pendingOne(runId, seen);
      assert.deepEqual([approval.tool, approval.args], ['restart_service', { service: 'payments' }]);
      await cs.settle(approval.trackingId, { type: 'approve' });
      const outcome = await cs.pendingOne(runId, seen);
      assert.equal(outcome.kind, 'outcome');
      return { runId, outcome };
    }

    test('the outcome question shows the attempt and is mailed; "run it again" restarts it once more', async () => {
      const {
        value: { runId, outcome },
        written,
      } = await stderrDuring(unknownRestart);
      // What the `npm start` terminal shows of it: one line saying what happened, no stack trace.
      const told = written.split('\n').filter((line) => line.includes(runId));
      assert.equal(told.length, 1, written);
      assert.match(
        told[0]!,
        /\[WARN\] run \S+: nobody knows whether a tool call's attempt 1 acted \(the service manager accepted the restart of payments but never confirmed it\); it is not retried, and the run asks a person \(npx countersign approvals list\)$/,
      );
      assert.doesNotMatch(written, /^\s+at /m);
      assert.deepEqual(outcome.args, { service: 'payments' });
      assert.deepEqual(outcome.allowedDecisions, ['respond', 'approve', 'reject']);
      assert.equal(outcome.attempt?.progress?.step, 'restart of payments requested from the service manager');
      assert.match(outcome.attempt!.reason, /accepted the restart of payments but never confirmed it/);

      // The mail is sent beside the approval, so it may land a moment after the run shows it.
      const outbox = path.join(cs.dataDir, 'outbox');
      const file = await waitFor(
        async () => readdirSync(outbox).find((f) => f.endsWith(`-${outcome.trackingId}-admin.eml`)),
        `an email for ${outcome.trackingId} in the outbox`,
      );
      const mail = await simpleParser(readFileSync(path.join(outbox, file)));
      assert.match(mail.subject ?? '', /does not know whether this call happened: restart_service/);
      assert.match(mail.text ?? '', /^It did not happen: run it again:$/m);

      await cs.settle(outcome.trackingId, { type: 'approve' });
      assert.match(
        (await cs.finished(runId)).output!,
        /Restarted payments on web-1 \(simulated\): it is active \(\d+ restarts on record\)\./,
      );
    });

    test('"it happened", with its result, is what the model reports', async () => {
      const { runId, outcome } = await unknownRestart();
      await cs.settle(outcome.trackingId, {
        type: 'respond',
        result: { service: 'payments', state: 'active' },
      });
      assert.match(
        (await cs.finished(runId)).output!,
        /An operator reported that the restart of payments happened: it is active\./,
      );
    });
  });

  describe('run_db_report: a person supplies the reporting database password', () => {
    /** The run's secret approval: the report runs without approval, its password does not. */
    async function passwordAsked() {
      const runId = await cs.startRun('ops', 'Run the revenue report');
      const asked = await cs.pendingOne(runId);
      assert.equal(asked.kind, 'secret');
      assert.equal(asked.tool, 'run_db_report');
      assert.deepEqual(asked.secret, {
        name: 'reporting_db_password',
        label: 'the password of report_reader on the reporting database (simulated: any password signs in)',
      });
      assert.deepEqual(asked.allowedDecisions, ['respond', 'reject']);
      // What the password unlocks: the call's own arguments, and no password.
      assert.deepEqual(asked.args, { report: 'revenue' });
      return { runId, asked };
    }

    test('supplied over REST: the report runs, and the password is nowhere the run shows or stores', async () => {
      const { runId, asked } = await passwordAsked();
      const password = `pw-${randomUUID()}`;
      // Only a secret answers it: a plain result is refused.
      assert.equal((await cs.decide(asked.trackingId, { type: 'respond', result: password })).status, 400);
      await cs.settle(asked.trackingId, { type: 'respond', secret: password });
      const run = await cs.finished(runId);
      assert.match(
        run.output!,
        /Ran the revenue report on the reporting database \(simulated\) as report_reader, with the password a person supplied \(I never saw it\): 10 row\(s\)\./,
      );
      assert.match(run.output!, /\| month \| orders \| revenue \|/);
      // The audit trail says who supplied it and when, never what.
      const supplied = run.audit.find(
        (e) => e.type === 'approval.decided' && e.trackingId === asked.trackingId,
      );
      assert.equal(supplied?.actor, 'admin');
      assert.equal(supplied?.decision, 'respond');
      assert.equal(JSON.stringify(run).includes(password), false, 'the run view holds the password');
      const approval = await cs.api('GET', `/api/approvals/${asked.trackingId}`);
      assert.equal(JSON.stringify(approval.body).includes(password), false);

      // The stored history holds it sealed only.
      const connection = await Connection.connect({ address: cs.countersign.temporalAddress });
      try {
        const history = await new Client({ connection }).workflow.getHandle(runId).fetchHistory();
        const History = proto.temporal.api.history.v1.History;
        const bytes = Buffer.from(History.encode(History.fromObject(history)).finish());
        assert.ok(bytes.length > 1000, 'the history was read');
        assert.equal(bytes.includes(Buffer.from(password)), false, 'the history holds the password');
        assert.ok(bytes.includes(Buffer.from('cs1:process-')), 'the history holds the sealed value');
      } finally {
        await connection.close();
      }
    });

    test('declined: the report never runs, and the answer says why', async () => {
      const { runId, asked } = await passwordAsked();
      await cs.settle(asked.trackingId, { type: 'reject', message: 'not today' });
      const run = await cs.finished(runId);
      assert.match(
        run.output!,
        /I could not run the revenue report: .*admin declined to supply the password of report_reader.*not today/,
      );
      assert.equal(run.approvals.find((a) => a.trackingId === asked.trackingId)?.status, 'rejected');
      assert.doesNotMatch(run.output!, /Ran the revenue report/);
    });
  });

  test('reject: no VM is provisioned', async () => {
    const runId = await cs.startRun('ops', 'Provision an xlarge VM in us-west-2');
    const approval = await cs.pendingOne(runId);
    assert.deepEqual(approval.args, { size: 'xlarge', region: 'us-west-2' });
    await cs.settle(approval.trackingId, { type: 'reject', message: 'Use a medium one' });
    assert.match(
      (await cs.finished(runId)).output!,
      /did not provision a xlarge VM in us-west-2.*Use a medium one/,
    );
  });
});

describe('sql-analyst', () => {
  test('approve: a multi-query analysis is reviewed as one plan', async () => {
    const runId = await cs.startRun('sql-analyst', 'Give me an analysis of our sales');
    const approval = await cs.pendingOne(runId);
    assert.equal(approval.kind, 'plan');
    assert.equal(approval.plan?.length, 3);
    await cs.settle(approval.trackingId, { type: 'approve' });
    const output = (await cs.finished(runId)).output!;
    assert.equal(output.match(/returned \d+ row/g)?.length, 3);
  });

  test('edit: the analyst narrows the WHERE and LIMIT, and cuts a step', async () => {
    const runId = await cs.startRun('sql-analyst', 'Give me an analysis of our sales');
    const approval = await cs.pendingOne(runId);
    const [first] = approval.plan!;
    const sql =
      "SELECT c.country, COUNT(*) AS orders FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.country = 'DE' GROUP BY c.country LIMIT 1";
    await cs.settle(approval.trackingId, { type: 'edit', plan: [{ ...first!, args: { sql } }] });
    const output = (await cs.finished(runId)).output!;
    assert.match(output, /as edited by the analyst\) returned 1 row/);
    assert.match(output, /\| DE \|/);
    assert.equal(output.match(/did not run .*: a human reviewer removed it from the plan/g)?.length, 2);
  });

  test('reject: the query never runs', async () => {
    const runId = await cs.startRun('sql-analyst', 'Who are our top 3 customers?');
    const approval = await cs.pendingOne(runId);
    await cs.settle(approval.trackingId, { type: 'reject', message: 'No customer names' });
    const output = (await cs.finished(runId)).output!;
    assert.match(output, /did not run .*No customer names/);
  });
});

describe('support-email', () => {
  const outbox = () => path.join(cs.dataDir, 'outbox');
  const customerMail = () =>
    readdirSync(outbox()).filter((f) => f.endsWith('.eml') && f.includes('-support-'));

  test('approve: asks a human for the missing facts, then sends after approval', async () => {
    const runId = await cs.startRun('support-email', 'Tell the customer their refund went through');
    const seen = new Set<string>();
    const question = await cs.pendingOne(runId, seen);
    assert.equal(question.kind, 'question');
    assert.equal(question.question, "What is the customer's email address?");
    await cs.settle(question.trackingId, { type: 'respond', result: 'sam@example.com' });
    const order = await cs.pendingOne(runId, seen);
    await cs.settle(order.trackingId, { type: 'respond', result: 'order A-1042' });
    const email = await cs.pendingOne(runId, seen);
    assert.equal(email.tool, 'send_email');
    assert.equal(email.args.subject, 'Your refund for order #A-1042');
    await cs.settle(email.trackingId, { type: 'approve' });
    assert.match(
      (await cs.finished(runId)).output!,
      /Sent "Your refund for order #A-1042" to sam@example.com/,
    );
    const sent = customerMail().map((f) => readFileSync(path.join(outbox(), f), 'utf8'));
    assert.ok(sent.some((eml) => /^To: sam@example\.com$/m.test(eml)));
  });

  test('edit: the support lead rewrites the subject', async () => {
    const runId = await cs.startRun('support-email', 'Email kim@example.com that order #77812 is delayed');
    const email = await cs.pendingOne(runId);
    await cs.settle(email.trackingId, {
      type: 'edit',
      args: { ...email.args, subject: 'Good news about order #77812' },
    });
    assert.match((await cs.finished(runId)).output!, /Sent "Good news about order #77812".*edited it/);
  });

  test('reject: nothing is sent', async () => {
    const before = customerMail().length;
    const runId = await cs.startRun('support-email', 'Email lee@example.com that order #5521 is delayed');
    const email = await cs.pendingOne(runId);
    await cs.settle(email.trackingId, { type: 'reject', message: 'Wrong order' });
    assert.match((await cs.finished(runId)).output!, /did not send.*Wrong order/);
    assert.equal(customerMail().length, before);
  });
});
