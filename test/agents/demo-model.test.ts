import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { demoModel } from '../../demo/demo-model/index.js';
import type {
  AssistantReply,
  ChatCompletionRequest,
  ChatMessage,
} from '../../model-server/chat-completions-server.js';
import {
  cutFromPlanMessage,
  deniedMessage,
  editedCallMessage,
  expiredMessage,
  failedMessage,
  movedStepMessage,
  rejectedMessage,
} from '../../workflows/tool-messages.js';

const TOOLS: Record<string, string[]> = {
  'bank-transfer': ['transfer'],
  'loan-approval': ['assess_risk', 'approve_loan', 'decline_loan'],
  ops: ['run_shell_command', 'provision_vm', 'restart_service', 'run_db_report'],
  'sql-analyst': ['execute_sql_query'],
  'support-email': ['send_email', 'ask_human'],
  helpdesk: ['list_tickets', 'close_ticket'],
};

/** A conversation as the workflow sends it: system, user, then assistant turns and tool messages. */
class Chat {
  readonly messages: ChatMessage[];
  constructor(
    readonly agent: string,
    input: string,
  ) {
    this.messages = [
      { role: 'system', content: 'instructions' },
      { role: 'user', content: input },
    ];
  }

  request(): ChatCompletionRequest {
    return {
      model: 'demo',
      messages: this.messages,
      tools: TOOLS[this.agent]!.map((name) => ({ type: 'function', function: { name } })),
    };
  }

  /** Asks the model; its reply joins the conversation. */
  next(): AssistantReply {
    const reply = demoModel(this.request());
    this.messages.push({ role: 'assistant', content: reply.content ?? null, tool_calls: reply.tool_calls });
    return reply;
  }

  /** A correction given on resume: the user's word, read before the next model call. */
  correct(text: string): void {
    this.messages.push({ role: 'user', content: text });
  }

  /** Answers each pending tool call in order. */
  results(...contents: (string | object)[]): void {
    const last = this.messages.at(-1);
    assert.ok(last?.role === 'assistant' && last.tool_calls);
    last.tool_calls.forEach((call, i) => {
      const content = contents[i]!;
      this.messages.push({
        role: 'tool',
        tool_call_id: call.id!,
        content: typeof content === 'string' ? content : JSON.stringify(content),
      });
    });
  }
}

function calls(reply: AssistantReply): { name: string; args: Record<string, unknown> }[] {
  return (reply.tool_calls ?? []).map((c) => ({
    name: c.function.name,
    args: c.function.arguments as Record<string, unknown>,
  }));
}

describe('bank-transfer rules', () => {
  test('the walkthrough request becomes one transfer call', () => {
    const chat = new Chat('bank-transfer', 'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444');
    const reply = chat.next();
    assert.deepEqual(calls(reply), [
      { name: 'transfer', args: { amount: 2500, from: '4242 4242 4242 4242', to: '5555 5555 5555 4444' } },
    ]);
    assert.match(reply.content!, /offline demo model/);
  });

  test('several transfers in one request become several calls, with unique ids', () => {
    const chat = new Chat(
      'bank-transfer',
      'Send 300 dollars from 5555 5555 5555 4444 to 4000 0566 5566 5556 and $1,200.50 from 4242 4242 4242 4242 to 5555 5555 5555 4444.',
    );
    const reply = chat.next();
    assert.deepEqual(
      calls(reply).map((c) => c.args.amount),
      [300, 1200.5],
    );
    assert.equal(new Set(reply.tool_calls!.map((c) => c.id)).size, 2);
  });

  test('reports what a reviewer changed, from the note before the result, and the new balances', () => {
    const chat = new Chat('bank-transfer', 'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444');
    chat.next();
    const result = JSON.stringify({
      status: 'executed',
      transfer: { id: 'tx', from: '4242 4242 4242 4242', to: '5555 5555 5555 4444', amount: 2000 },
      balances: { '4242 4242 4242 4242': 10_000, '5555 5555 5555 4444': 5_000 },
    });
    // The message the workflow writes after an edit: the note of what changed, then the result.
    const diff = [
      { path: '/amount', before: 2500, after: 2000 },
      { path: '/memo', after: 'Rent, with "late" fee.) paid' },
    ];
    chat.results(editedCallMessage(['lee'], diff, result));
    const reply = chat.next();
    assert.equal(reply.tool_calls, undefined);
    assert.match(
      reply.content!,
      /Transferred \$2,000\.00 from 4242 4242 4242 4242 to 5555 5555 5555 4444 \(a reviewer changed the amount from \$2,500\.00 to \$2,000\.00, the memo to "Rent, with \\"late\\" fee\.\) paid"\)\./,
    );
    assert.match(reply.content!, /4242 4242 4242 4242: \$10,000\.00/);
  });

  test('reads the notes of a plan review before the result: a moved step, an edited one', () => {
    const chat = new Chat('bank-transfer', 'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444');
    chat.next();
    const result = JSON.stringify({
      status: 'executed',
      transfer: { id: 'tx', from: '4242 4242 4242 4242', to: '5555 5555 5555 4444', amount: 900 },
      balances: {},
    });
    const edited = editedCallMessage(['lee'], [{ path: '/amount', before: 2500, after: 900 }], result);
    chat.results(movedStepMessage(2, 1, edited));
    assert.match(
      chat.next().content!,
      /Transferred \$900\.00 .*\(a reviewer changed the amount from \$2,500\.00 to \$900\.00\)/,
    );
  });

  test('a rejection is reported and not retried', () => {
    const chat = new Chat('bank-transfer', 'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444');
    chat.next();
    chat.results(rejectedMessage('transfer', ['admin'], 'Too much today'));
    const reply = chat.next();
    assert.equal(reply.tool_calls, undefined);
    assert.match(reply.content!, /did not transfer \$2,500\.00/);
    assert.match(reply.content!, /Too much today/);
    assert.match(reply.content!, /will not retry/);
  });

  test('an expired approval reads as a refusal too', () => {
    const chat = new Chat('bank-transfer', 'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444');
    chat.next();
    chat.results(expiredMessage('transfer'));
    assert.match(chat.next().content!, /did not transfer/);
  });

  test('an unclear request gets an example instead of a guess', () => {
    const reply = new Chat('bank-transfer', 'Move some money around').next();
    assert.equal(reply.tool_calls, undefined);
    assert.match(reply.content!, /Transfer \$2,500 from/);
  });
});

describe('corrections given on resume', () => {
  const TRANSFER = 'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444';
  const executed = {
    status: 'executed',
    transfer: { id: 'tx', from: '4242 4242 4242 4242', to: '5555 5555 5555 4444', amount: 2500 },
    balances: { '4242 4242 4242 4242': 997_500, '5555 5555 5555 4444': 5_500 },
  };

  test("the walkthrough's correction, after a transfer decided while paused, ends in the transfer's report", () => {
    const chat = new Chat('bank-transfer', TRANSFER);
    chat.next();
    chat.results(executed);
    chat.correct('The payee is right; go ahead.');
    const reply = chat.next();
    assert.equal(reply.tool_calls, undefined);
    assert.match(
      reply.content!,
      /^\[offline demo model\] You said “The payee is right; go ahead\.”, so I went on with the request\.\nTransferred \$2,500\.00 from 4242 4242 4242 4242 to 5555 5555 5555 4444\./,
    );
    assert.doesNotMatch(reply.content!, /I only understand/);
  });

  test('a go-ahead given before anything was proposed goes on with the request', () => {
    const chat = new Chat('bank-transfer', TRANSFER);
    chat.correct('Payee checked.');
    const reply = chat.next();
    assert.deepEqual(calls(reply), [
      { name: 'transfer', args: { amount: 2500, from: '4242 4242 4242 4242', to: '5555 5555 5555 4444' } },
    ]);
    assert.match(
      reply.content!,
      /You said “Payee checked\.”, so I am going on with the request\. Transferring \$2,500\.00/,
    );
    chat.results(executed);
    // Read once: the turn after it is the rule's own.
    assert.match(chat.next().content!, /^\[offline demo model\] Transferred \$2,500\.00/);
  });

  test('a go-ahead after the answer was given keeps that answer', () => {
    const chat = new Chat('bank-transfer', TRANSFER);
    chat.next();
    chat.results(executed);
    const first = chat.next().content!;
    chat.correct('Looks good, carry on.');
    const reply = chat.next();
    assert.equal(reply.tool_calls, undefined);
    assert.match(reply.content!, /You said “Looks good, carry on\.”; I had already finished the request\./);
    assert.ok(reply.content!.endsWith(first.replace('[offline demo model] ', '')));
  });

  test("a request after the answer (a chat's next turn) is answered afresh, its results read as its own", () => {
    const chat = new Chat('bank-transfer', TRANSFER);
    chat.next();
    chat.results(executed);
    chat.next();
    chat.correct('Transfer $500 from 4242 4242 4242 4242 to 4000 0566 5566 5556');
    const reply = chat.next();
    assert.deepEqual(calls(reply), [
      { name: 'transfer', args: { amount: 500, from: '4242 4242 4242 4242', to: '4000 0566 5566 5556' } },
    ]);
    assert.equal(reply.tool_calls![0]!.id, 'call_demo_3_1');
    chat.results({
      status: 'executed',
      transfer: { id: 'tx2', from: '4242 4242 4242 4242', to: '4000 0566 5566 5556', amount: 500 },
      balances: { '4242 4242 4242 4242': 997_000, '4000 0566 5566 5556': 1_000 },
    });
    assert.match(chat.next().content!, /^\[offline demo model\] Transferred \$500\.00 from 4242/);
  });

  test('a stop keeps the next step from being proposed, and names it', () => {
    const chat = new Chat(
      'loan-approval',
      'Assess the loan application of Jane Doe: credit score 760, annual income $95,000, monthly debts $800, 6 years employed, requesting $20,000.',
    );
    chat.next();
    chat.results({
      score: 86,
      rating: 'low',
      interestRate: 6.5,
      recommendation: 'approve_loan',
      reasons: [],
    });
    chat.correct('Do not proceed, the income is wrong.');
    const reply = chat.next();
    assert.equal(reply.tool_calls, undefined);
    assert.match(
      reply.content!,
      /You said “Do not proceed, the income is wrong\.”, so I stopped here and did not propose what I would have done next: approve_loan \{"applicant":"Jane Doe"/,
    );
  });

  test('a correction it cannot read is not guessed at: it says so, and proposes nothing', () => {
    const chat = new Chat('bank-transfer', TRANSFER);
    chat.correct('Make it 2000 and send it to Bob');
    const reply = chat.next();
    assert.equal(reply.tool_calls, undefined);
    assert.match(
      reply.content!,
      /I did not understand your note “Make it 2000 and send it to Bob” \(the offline demo model understands notes such as "go ahead" or "stop"\), so rather than guess I stopped here and did not propose what I would have done next: transfer \{"amount":2500/,
    );

    const after = new Chat('bank-transfer', TRANSFER);
    after.next();
    after.results(executed);
    after.correct('Make it 2000');
    assert.match(
      after.next().content!,
      /I did not understand your note “Make it 2000” .*so rather than guess I proposed nothing more\.\nTransferred \$2,500\.00/s,
    );
  });

  test('a go-ahead is read by every demo agent', () => {
    const chat = new Chat('ops', 'Restart the payments service');
    chat.correct('OK, go on.');
    assert.deepEqual(calls(chat.next()), [{ name: 'restart_service', args: { service: 'payments' } }]);
  });
});

describe('loan-approval rules', () => {
  const application =
    'Assess the loan application of Jane Doe: credit score 760, annual income $95,000, monthly debts $800, 6 years employed, requesting $20,000.';

  test('assess, then propose approve_loan, then report the decision', () => {
    const chat = new Chat('loan-approval', application);
    assert.deepEqual(calls(chat.next()), [
      {
        name: 'assess_risk',
        args: {
          applicant: 'Jane Doe',
          creditScore: 760,
          annualIncome: 95_000,
          monthlyDebt: 800,
          employmentYears: 6,
          amount: 20_000,
          termMonths: 60,
        },
      },
    ]);
    chat.results({
      score: 86,
      rating: 'low',
      interestRate: 6.5,
      recommendation: 'approve_loan',
      reasons: ['ok'],
    });
    assert.deepEqual(calls(chat.next()), [
      {
        name: 'approve_loan',
        args: { applicant: 'Jane Doe', amount: 20_000, termMonths: 60, interestRate: 6.5, riskScore: 86 },
      },
    ]);
    chat.results({
      decision: 'approved',
      loanId: 'loan-1',
      applicant: 'Jane Doe',
      amount: 18_000,
      termMonths: 60,
      interestRate: 6.5,
      monthlyPayment: 352.18,
    });
    const final = chat.next().content!;
    assert.match(final, /approved for Jane Doe: \$18,000\.00/);
    assert.match(final, /adjusted the terms/);
  });

  test('a weak application is proposed for decline; an officer rejection is reported', () => {
    const chat = new Chat(
      'loan-approval',
      'Loan application from John Roe: credit score 580, income $30,000, debt-to-income ratio 45%, employed for 1 year, requesting $40,000.',
    );
    const assess = calls(chat.next())[0]!;
    assert.equal(assess.args.monthlyDebt, 1125);
    chat.results({
      score: 20,
      rating: 'high',
      interestRate: 8.1,
      recommendation: 'decline_loan',
      reasons: ['credit score 580 is below 620'],
    });
    assert.deepEqual(calls(chat.next()), [
      {
        name: 'decline_loan',
        args: { applicant: 'John Roe', amount: 40_000, reasons: ['credit score 580 is below 620'] },
      },
    ]);
    chat.results(rejectedMessage('decline_loan', ['officer'], 'Call the applicant first'));
    assert.match(chat.next().content!, /did not decline the loan.*Call the applicant first.*will not retry/s);
  });

  test('missing figures are asked for', () => {
    const reply = new Chat(
      'loan-approval',
      'Assess the loan application of Jane Doe, credit score 700',
    ).next();
    assert.equal(reply.tool_calls, undefined);
    assert.match(reply.content!, /annual income/);
  });
});

describe('ops rules', () => {
  test('plain requests map to simulated commands', () => {
    const cases: [string, string][] = [
      ['How much disk space is left?', 'df -h'],
      ['Restart the worker service', 'systemctl restart worker'],
      ['Please clean up the rotated logs', 'rm -f /var/log/app/app.log.*'],
      ['Run `ls -la /srv/app`', 'ls -la /srv/app'],
    ];
    for (const [input, command] of cases) {
      assert.deepEqual(
        calls(new Chat('ops', input).next()),
        [{ name: 'run_shell_command', args: { command, cwd: '/', timeoutSeconds: 30 } }],
        input,
      );
    }
  });

  test('provision a VM, then report it', () => {
    const chat = new Chat('ops', 'Provision a large VM in eu-west-1');
    assert.deepEqual(calls(chat.next()), [
      { name: 'provision_vm', args: { size: 'large', region: 'eu-west-1' } },
    ]);
    chat.results({
      simulated: true,
      vm: {
        id: 'vm-1',
        size: 'medium',
        region: 'eu-west-1',
        ip: '10.0.0.2',
        status: 'running',
        hourlyCost: 0.05,
      },
    });
    assert.match(chat.next().content!, /Provisioned vm-1: medium in eu-west-1/);
  });

  test("a restart of a service the service manager runs is restart_service; the host's units stay systemctl", () => {
    for (const input of ['Restart the payments service', 'please restart payments']) {
      const reply = new Chat('ops', input).next();
      assert.deepEqual(calls(reply), [{ name: 'restart_service', args: { service: 'payments' } }], input);
      assert.match(reply.content!, /Restarting payments through the service manager/);
    }
    assert.deepEqual(calls(new Chat('ops', 'Restart the checkout service').next()), [
      { name: 'restart_service', args: { service: 'checkout' } },
    ]);
    assert.equal(calls(new Chat('ops', 'Restart the worker service').next())[0]!.name, 'run_shell_command');
  });

  test('a restart is reported as the service manager says, as an operator says, or as failed', () => {
    const restarted = (result: string | object) => {
      const chat = new Chat('ops', 'Restart the payments service');
      chat.next();
      chat.results(result);
      const reply = chat.next();
      assert.equal(reply.tool_calls, undefined);
      return reply.content!;
    };
    // Run again after nobody knew: the manager counts both restarts.
    assert.match(
      restarted({
        host: 'web-1 (simulated)',
        simulated: true,
        service: 'payments',
        state: 'active',
        restarts: 2,
      }),
      /Restarted payments on web-1 \(simulated\): it is active \(2 restarts on record\)\./,
    );
    // "It happened", in an operator's words.
    assert.match(
      restarted({ service: 'payments', state: 'active' }),
      /An operator reported that the restart of payments happened: it is active\./,
    );
    // "It failed".
    assert.match(
      restarted(
        failedMessage(
          'restart_service',
          'its outcome was unknown and admin said it did not complete: still down',
        ),
      ),
      /I could not restart payments: .*did not complete: still down/,
    );
    assert.match(
      restarted(rejectedMessage('restart_service', ['admin'], 'Not now')),
      /did not restart payments/,
    );
  });

  test('a report is run_db_report, with no password among its arguments', () => {
    for (const [input, report] of [
      ['Run the revenue report', 'revenue'],
      ['run the refunds report please', 'refunds'],
      ['Can I get a report on refunds?', 'refunds'],
    ] as const) {
      const reply = new Chat('ops', input).next();
      assert.deepEqual(calls(reply), [{ name: 'run_db_report', args: { report } }], input);
      assert.match(
        reply.content!,
        new RegExp(`Running the ${report} report .*a person supplies its password`),
      );
    }
  });

  test("a report's rows are read back; a declined password is reported as the call failing", () => {
    const chat = new Chat('ops', 'Run the revenue report');
    chat.next();
    chat.results({
      report: 'revenue',
      database: 'reporting',
      simulated: true,
      signedInAs: 'report_reader',
      columns: ['month', 'orders', 'revenue'],
      rows: [
        { month: '2026-01', orders: 20, revenue: 5123.5 },
        { month: '2026-02', orders: 25, revenue: 6400 },
      ],
      rowCount: 2,
    });
    const text = chat.next().content!;
    assert.match(
      text,
      /Ran the revenue report on the reporting database \(simulated\) as report_reader, with the password a person supplied \(I never saw it\): 2 row\(s\)\./,
    );
    assert.match(text, /\| 2026-02 \| 25 \| 6400 \|/);

    const declined = new Chat('ops', 'Run the revenue report');
    declined.next();
    declined.results(
      failedMessage('run_db_report', 'admin declined to supply the password of report_reader: not today'),
    );
    assert.match(
      declined.next().content!,
      /I could not run the revenue report: .*admin declined to supply the password of report_reader: not today/,
    );
  });

  test('shows the output of an edited command', () => {
    const chat = new Chat('ops', 'Restart the worker service');
    chat.next();
    chat.results({
      host: 'web-1 (simulated)',
      simulated: true,
      command: 'systemctl status worker',
      cwd: '/',
      exitCode: 3,
      stdout: 'Active: failed\n',
      stderr: '',
    });
    const text = chat.next().content!;
    assert.match(text, /operator changed it from `systemctl restart worker`/);
    assert.match(text, /Active: failed/);
  });
});

describe('sql-analyst rules', () => {
  test('an analysis is a multi-query plan', () => {
    const reply = new Chat('sql-analyst', 'Give me an analysis of our sales').next();
    assert.equal(calls(reply).length, 3);
    for (const c of calls(reply)) assert.match(String(c.args.sql), /LIMIT \d+$/);
  });

  test('a question becomes one query; results come back as a table', () => {
    const chat = new Chat('sql-analyst', 'Who are our top 3 customers?');
    assert.match(String(calls(chat.next())[0]!.args.sql), /ORDER BY revenue DESC LIMIT 3$/);
    chat.results({
      ok: true,
      sql: 'SELECT name FROM customers LIMIT 2',
      columns: ['name'],
      rows: [{ name: 'Ada' }, { name: 'Alan' }],
      rowCount: 2,
      truncated: false,
    });
    const text = chat.next().content!;
    assert.match(text, /as edited by the analyst/);
    assert.match(text, /\| Ada \|/);
  });

  test('steps cut from a plan, or denied by policy, are reported as such', () => {
    const chat = new Chat('sql-analyst', 'Give me an analysis of our sales');
    chat.next();
    const ok = {
      ok: true,
      sql: 'SELECT 1 AS one',
      columns: ['one'],
      rows: [{ one: 1 }],
      rowCount: 1,
      truncated: false,
    };
    chat.results(ok, cutFromPlanMessage('execute_sql_query', 'Enough'), deniedMessage('execute_sql_query'));
    const text = chat.next().content!;
    assert.match(text, /returned 1 row/);
    assert.match(text, /did not run .*: a human reviewer removed it from the plan \(“Enough”\)/);
    assert.match(text, /did not run .*: policy does not allow it/);
  });

  test('a tool failure is reported', () => {
    const chat = new Chat('sql-analyst', 'Run `SELECT * FROM nope`');
    chat.next();
    chat.results(failedMessage('execute_sql_query', 'boom'));
    assert.match(chat.next().content!, /could not run/);
  });
});

describe('support-email rules', () => {
  test('asks a human for missing facts, then drafts the email', () => {
    const chat = new Chat('support-email', 'Tell the customer their refund went through');
    assert.deepEqual(calls(chat.next()), [
      { name: 'ask_human', args: { question: "What is the customer's email address?" } },
    ]);
    chat.results('sam@example.com');
    assert.deepEqual(calls(chat.next()), [
      { name: 'ask_human', args: { question: 'Which order number is this about?' } },
    ]);
    chat.results('Order A-1042');
    const send = calls(chat.next())[0]!;
    assert.equal(send.name, 'send_email');
    assert.equal(send.args.to, 'sam@example.com');
    assert.equal(send.args.subject, 'Your refund for order #A-1042');
    chat.results({
      status: 'sent',
      to: 'sam@example.com',
      subject: 'Your refund for order #A-1042',
      file: '/x/outbox/1.eml',
    });
    assert.match(chat.next().content!, /Sent "Your refund for order #A-1042" to sam@example.com.*outbox/);
  });

  test('an order number answered bare, without "order" or "#", is taken; an unreadable one ends the run', () => {
    const chat = new Chat('support-email', 'Tell sam@example.com their refund went through');
    assert.deepEqual(calls(chat.next()), [
      { name: 'ask_human', args: { question: 'Which order number is this about?' } },
    ]);
    chat.results('A-1042');
    const send = calls(chat.next())[0]!;
    assert.equal(send.name, 'send_email');
    assert.equal(send.args.subject, 'Your refund for order #A-1042');

    const vague = new Chat('support-email', 'Tell sam@example.com their refund went through');
    vague.next();
    vague.results('no idea');
    const reply = vague.next();
    assert.equal(calls(reply).length, 0, 'never asks the same question again');
    assert.match(reply.content!, /could not read one in "no idea", so I did not send anything/);
  });

  test('a complete request goes straight to send_email; a rejection is not retried', () => {
    const chat = new Chat('support-email', 'Email kim@example.com that order #77812 is delayed');
    assert.equal(calls(chat.next())[0]!.name, 'send_email');
    chat.results(rejectedMessage('send_email', ['lead'], 'Wrong tone'));
    const reply = chat.next();
    assert.equal(reply.tool_calls, undefined);
    assert.match(reply.content!, /did not send.*Wrong tone/);
  });
});

describe('helpdesk rules', () => {
  test('a close request proposes close_ticket with its resolution, and reports what the server closed', () => {
    const chat = new Chat('helpdesk', 'Close ticket T-1002 as resolved');
    assert.deepEqual(calls(chat.next()), [
      { name: 'close_ticket', args: { id: 'T-1002', resolution: 'resolved' } },
    ]);
    chat.results({ ticket: { id: 'T-1002', status: 'closed', resolution: 'duplicate' } });
    const reply = chat.next();
    assert.equal(reply.tool_calls, undefined);
    assert.match(
      reply.content!,
      /Closed T-1002 as duplicate \(the support lead changed the resolution from resolved\)\./,
    );
  });

  test('a list request reads the queue at once; the tickets come back as a table', () => {
    const chat = new Chat('helpdesk', 'List the open tickets');
    assert.deepEqual(calls(chat.next()), [{ name: 'list_tickets', args: { status: 'open' } }]);
    chat.results({ tickets: [{ id: 'T-1001', title: 'Printer jams', status: 'open' }] });
    assert.match(
      chat.next().content!,
      /1 ticket\(s\):\n\| id \| title \| status \|\n.*\n\| T-1001 \| Printer jams \| open \|/,
    );
  });

  test("a rejected close is not retried; the server's refusal is reported", () => {
    const rejected = new Chat('helpdesk', 'Close T-1003 as a duplicate because same as T-1001');
    assert.deepEqual(calls(rejected.next()), [
      { name: 'close_ticket', args: { id: 'T-1003', resolution: 'duplicate', note: 'same as T-1001' } },
    ]);
    rejected.results(rejectedMessage('close_ticket', ['admin'], 'Still happening'));
    assert.match(rejected.next().content!, /did not close T-1003: .*Still happening.*will not retry/);
    const failed = new Chat('helpdesk', 'Close ticket T-1004');
    failed.next();
    failed.results(failedMessage('close_ticket', 'T-1004 is already closed (resolved)'));
    assert.match(failed.next().content!, /could not close T-1004: .*already closed/);
  });

  test('a request it cannot read gets an example', () => {
    const reply = new Chat('helpdesk', 'Help me').next();
    assert.equal(reply.tool_calls, undefined);
    assert.match(reply.content!, /Close ticket T-1002 as resolved/);
  });
});

test('the same conversation always gets the same reply', () => {
  const request = new Chat(
    'bank-transfer',
    'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444',
  ).request();
  assert.deepEqual(demoModel(request), demoModel(structuredClone(request)));
});

test('an agent it does not know gets a plain explanation', () => {
  const reply = demoModel({ model: 'demo', messages: [{ role: 'user', content: 'hi' }], tools: [] });
  assert.match(reply.content!, /offline rule-based demo model/);
});
