import { after, describe, test, mock } from 'node:test';
import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  OutcomeUnknownError,
  toToolSpec,
  type ToolContext,
  type ToolDefinition,
} from '../../define/index.js';
import { evaluatePolicy } from '../../workflows/evaluate-policy.js';
import { demoAgents } from '../../demo/agents/index.js';
import { Ledger } from '../../demo/agents/ledger.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'countersign-agents-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));
const agents = demoAgents({ dataDir });

function tool(agent: string, name: string): ToolDefinition {
  const found = agents.find((a) => a.name === agent)?.tools.find((t) => t.name === name);
  assert.ok(found, `${agent}/${name} exists`);
  return found;
}

function context(key: string): ToolContext {
  return {
    runId: 'run-1',
    toolCallId: key,
    idempotencyKey: `run-1/${key}`,
    approvedBy: ['admin'],
    secrets: {},
    signal: new AbortController().signal,
    progress: () => undefined,
  };
}

/** Runs a tool as the activity would: arguments through its schema first. */
async function run(
  agent: string,
  name: string,
  args: unknown,
  key: string,
): Promise<Record<string, unknown>> {
  const t = tool(agent, name);
  return (await t.execute(t.parameters.parse(args), context(key))) as Record<string, unknown>;
}

describe('demo agents', () => {
  test('five agents with the tools issue 5 names', () => {
    assert.deepEqual(
      agents.map((a) => [a.name, a.tools.map((t) => t.name)]),
      [
        ['loan-approval', ['assess_risk', 'approve_loan', 'decline_loan']],
        ['bank-transfer', ['transfer']],
        ['ops', ['run_shell_command', 'provision_vm', 'restart_service', 'run_db_report']],
        ['sql-analyst', ['execute_sql_query']],
        ['support-email', ['send_email']],
      ],
    );
    assert.equal(agents.find((a) => a.name === 'sql-analyst')?.planReview, true);
    assert.equal(agents.find((a) => a.name === 'support-email')?.askHuman, true);
  });

  test('transfer policy: over 1,000 needs treasury, over 100,000 two approvers of the large tier', () => {
    const spec = toToolSpec(tool('bank-transfer', 'transfer'));
    const args = (amount: number) => ({ from: '4242 4242 4242 4242', to: '5555 5555 5555 4444', amount });
    assert.equal(evaluatePolicy(spec, args(1000)).verdict, 'auto');
    const treasury = evaluatePolicy(spec, args(2500));
    assert.ok(treasury.verdict === 'approve');
    assert.deepEqual([treasury.tier.approvers, treasury.tier.requiredApprovals], [['treasury', 'admin'], 1]);
    const large = evaluatePolicy(spec, args(150_000));
    assert.ok(large.verdict === 'approve');
    assert.deepEqual(large.tier, {
      name: 'large transfer',
      approvers: ['cfo', 'admin'],
      requiredApprovals: 2,
      deadlineSeconds: 4 * 3600,
      onTimeout: { action: 'reject' },
    });
  });
});

describe('bank-transfer ledger', () => {
  test('a transfer really moves money and reports the new balances', async () => {
    const result = await run(
      'bank-transfer',
      'transfer',
      { from: '4242 4242 4242 4242', to: '5555 5555 5555 4444', amount: 2000 },
      't1',
    );
    assert.equal(result.status, 'executed');
    assert.deepEqual(result.transfer, {
      id: 'tx-run-1/t1',
      from: '4242 4242 4242 4242',
      to: '5555 5555 5555 4444',
      amount: 2000,
    });
    assert.deepEqual(result.balances, { '4242 4242 4242 4242': 998_000, '5555 5555 5555 4444': 5_000 });
    const ledger = new Ledger(path.join(dataDir, 'demo', 'ledger.db'));
    assert.equal(ledger.balance('4242424242424242'), 998_000);
  });

  test('the same idempotency key never moves money twice', async () => {
    const args = { from: '5555 5555 5555 4444', to: '4000 0566 5566 5556', amount: 100 };
    const first = await run('bank-transfer', 'transfer', args, 't2');
    const second = await run('bank-transfer', 'transfer', args, 't2');
    assert.deepEqual(second, first);
    const ledger = new Ledger(path.join(dataDir, 'demo', 'ledger.db'));
    assert.equal(ledger.balance('4000056655665556'), 600);
    const third = await run('bank-transfer', 'transfer', args, 't3');
    assert.deepEqual(third.balances, { '5555 5555 5555 4444': 4_800, '4000 0566 5566 5556': 700 });
  });

  test('insufficient funds and unknown accounts are results, and nothing moves', async () => {
    const poor = await run(
      'bank-transfer',
      'transfer',
      { from: '4000 0566 5566 5556', to: '4242 4242 4242 4242', amount: 5000 },
      't4',
    );
    assert.equal(poor.status, 'failed');
    assert.match(String(poor.error), /insufficient funds/);
    const unknown = await run(
      'bank-transfer',
      'transfer',
      { from: '1111 2222 3333 4444', to: '4242 4242 4242 4242', amount: 5 },
      't5',
    );
    assert.match(String(unknown.error), /unknown account/);
    assert.equal(new Ledger(path.join(dataDir, 'demo', 'ledger.db')).balance('4242424242424242'), 998_000);
  });

  test("the walkthrough's transfer, repeated ten times on a fresh ledger, never runs dry", async () => {
    const fresh = mkdtempSync(path.join(tmpdir(), 'countersign-ledger-'));
    try {
      const transfer = demoAgents({ dataDir: fresh })
        .find((a) => a.name === 'bank-transfer')!
        .tools.find((t) => t.name === 'transfer')!;
      const args = transfer.parameters.parse({
        from: '4242 4242 4242 4242',
        to: '5555 5555 5555 4444',
        amount: 2500,
      });
      for (let i = 1; i <= 10; i++) {
        const result = (await transfer.execute(args, context(`walkthrough-${i}`))) as Record<string, unknown>;
        assert.equal(result.status, 'executed', `transfer ${i}: ${String(result.error)}`);
      }
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});

describe('loan-approval', () => {
  test('risk assessment recommends approving a strong applicant and declining a weak one', async () => {
    const strong = await run(
      'loan-approval',
      'assess_risk',
      {
        applicant: 'Jane Doe',
        creditScore: 760,
        annualIncome: 95_000,
        monthlyDebt: 800,
        employmentYears: 6,
        amount: 20_000,
      },
      'l1',
    );
    assert.equal(strong.recommendation, 'approve_loan');
    assert.ok(Number(strong.score) >= 60);
    const weak = await run(
      'loan-approval',
      'assess_risk',
      {
        applicant: 'John Roe',
        creditScore: 580,
        annualIncome: 30_000,
        monthlyDebt: 1_400,
        employmentYears: 0.5,
        amount: 40_000,
      },
      'l2',
    );
    assert.equal(weak.recommendation, 'decline_loan');
    assert.ok((weak.reasons as string[]).length >= 2);
  });

  test('approve_loan records once per idempotency key', async () => {
    const args = { applicant: 'Jane Doe', amount: 20_000, termMonths: 60, interestRate: 6.5, riskScore: 82 };
    const first = await run('loan-approval', 'approve_loan', args, 'l3');
    assert.equal(first.decision, 'approved');
    assert.ok(Number(first.monthlyPayment) > 390 && Number(first.monthlyPayment) < 392);
    assert.deepEqual(await run('loan-approval', 'approve_loan', { ...args, amount: 1 }, 'l3'), first);
  });
});

describe('ops simulated host', () => {
  test('commands are interpreted, never spawned', async () => {
    const spies = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'].map((name) =>
      mock.method(childProcess, name as 'spawn'),
    );
    const marker = path.join(dataDir, 'marker');
    const touch = await run('ops', 'run_shell_command', { command: `touch ${marker}` }, 'o1');
    assert.equal(touch.exitCode, 127);
    const rm = await run('ops', 'run_shell_command', { command: `rm -rf ${dataDir}` }, 'o2');
    assert.equal(rm.exitCode, 0);
    assert.ok(existsSync(dataDir), 'the real directory is untouched');
    assert.equal(existsSync(marker), false);
    const chained = await run('ops', 'run_shell_command', { command: 'ls; rm -rf /' }, 'o3');
    assert.equal(chained.exitCode, 2);
    for (const spy of spies) assert.equal(spy.mock.callCount(), 0);
    mock.restoreAll();
  });

  test('the simulated host keeps state and dedupes on the idempotency key', async () => {
    const status = await run('ops', 'run_shell_command', { command: 'systemctl status worker' }, 'o4');
    assert.equal(status.exitCode, 3);
    assert.equal(status.simulated, true);
    await run('ops', 'run_shell_command', { command: 'systemctl restart worker' }, 'o5');
    const again = await run('ops', 'run_shell_command', { command: 'systemctl status worker' }, 'o6');
    assert.match(String(again.stdout), /Active: active/);
    assert.deepEqual(
      await run('ops', 'run_shell_command', { command: 'systemctl status worker' }, 'o4'),
      status,
    );

    const before = await run('ops', 'run_shell_command', { command: 'df -h' }, 'o7');
    await run('ops', 'run_shell_command', { command: 'rm /var/log/app/app.log.*', cwd: '/var/log' }, 'o8');
    const afterClean = await run('ops', 'run_shell_command', { command: 'df -h' }, 'o9');
    assert.notEqual(afterClean.stdout, before.stdout);
    const ls = await run('ops', 'run_shell_command', { command: 'ls', cwd: '/var/log/app' }, 'o10');
    assert.equal(ls.stdout, 'app.log\n');
    const slow = await run('ops', 'run_shell_command', { command: 'sleep 90', timeoutSeconds: 5 }, 'o11');
    assert.equal(slow.exitCode, 124);
  });

  test('read-only commands run at once, the rest wait for an operator', () => {
    const rule = tool('ops', 'run_shell_command').approval?.when as { if: { value: string } };
    const readOnly = new RegExp(rule.if.value);
    for (const command of [
      'df -h',
      'ls -la /var/log',
      'systemctl status nginx',
      'tail -n 20 /var/log/app/app.log',
    ]) {
      assert.ok(readOnly.test(command), command);
    }
    for (const command of [
      'rm -rf /',
      'systemctl restart nginx',
      'cat /etc/hostname; rm -rf /',
      'ls $(rm -rf /)',
      'cat /etc/hostname\nrm -rf /',
      'cat /etc/hostname\rrm -rf /',
      'ls\u2028rm -rf /',
      'ls \u001b[2K',
    ]) {
      assert.ok(!readOnly.test(command), JSON.stringify(command));
    }
  });

  test('restart_service does not dedupe, and cannot tell whether the first restart of payments happened', async () => {
    const restart = tool('ops', 'restart_service');
    assert.equal(restart.idempotent, false, 'left unset: a gated tool is not idempotent');
    const steps: string[] = [];
    const attempt = (service: string, key: string) =>
      restart.execute(restart.parameters.parse({ service }), {
        ...context(key),
        progress: (step) => steps.push(step),
      }) as Promise<Record<string, unknown>>;

    // The request went out and no confirmation came: the tool says it does not know.
    await assert.rejects(attempt('payments', 'r1'), (err: Error) => {
      assert.ok(err instanceof OutcomeUnknownError);
      assert.match(err.message, /accepted the restart of payments but never confirmed it/);
      return true;
    });
    assert.deepEqual(steps, ['restart of payments requested from the service manager']);
    // Run again under the same key (a person said it did not happen): it restarts again, and says so.
    const again = await attempt('payments', 'r1');
    assert.deepEqual([again.service, again.state, again.restarts], ['payments', 'active', 2]);
    const other = await attempt('checkout', 'r2');
    assert.deepEqual([other.service, other.restarts], ['checkout', 1]);
    assert.deepEqual((await attempt('checkout', 'r2')).restarts, 2, 'no dedupe on the key');
    assert.throws(() => restart.parameters.parse({ service: 'worker' }));
    // What a person may give in its place when nobody knows.
    assert.ok(restart.result?.safeParse({ service: 'payments', state: 'active' }).success);
    assert.ok(!restart.result?.safeParse({ service: 'payments', state: 'gone' }).success);
  });

  test('every other demo tool dedupes on its key or has no lasting effect', () => {
    const flags = agents.flatMap((a) => a.tools.map((t) => [t.name, t.idempotent] as const));
    assert.deepEqual(
      flags.filter(([, idempotent]) => !idempotent).map(([name]) => name),
      ['restart_service'],
    );
  });

  test('run_db_report takes its password from a person, and returns nothing of it', async () => {
    const report = tool('ops', 'run_db_report');
    // Declared as a secret, never a parameter: the model neither proposes nor sees it.
    assert.deepEqual(
      report.secrets?.map((s) => [s.name, s.keep]),
      [['reporting_db_password', 'once']],
    );
    assert.deepEqual(Object.keys(report.parameters.shape), ['report']);
    assert.doesNotMatch(JSON.stringify(toToolSpec(report).parameters), /password/i);
    // Runs without an approval; the password is asked of an operator (or the admin).
    assert.equal(evaluatePolicy(toToolSpec(report), { report: 'revenue' }).verdict, 'auto');
    assert.deepEqual(report.approval?.approvers, ['operator', 'admin']);

    const withPassword = async (password: string) =>
      (await report.execute(report.parameters.parse({ report: 'revenue' }), {
        ...context('db1'),
        secrets: { reporting_db_password: password },
      })) as Record<string, unknown>;
    const short = 'pw-1';
    const long = `a-much-longer-password-${'x'.repeat(40)}`;
    const first = await withPassword(short);
    const second = await withPassword(long);
    assert.equal(first.signedInAs, 'report_reader');
    assert.equal(first.rowCount, 10);
    assert.deepEqual((first.columns as string[]).slice(0, 2), ['month', 'orders']);
    // The output tells nothing of the password: not it, not its length, not whether it changed.
    assert.deepEqual(first, second);
    assert.equal(JSON.stringify(first).includes(short), false);
    assert.equal(JSON.stringify(second).includes(long), false);
    await assert.rejects(
      report.execute({ report: 'revenue' }, context('db2')),
      /no password for the reporting database/,
    );
  });

  test('provision_vm is deterministic per key', async () => {
    const vm = await run('ops', 'provision_vm', { size: 'large', region: 'eu-west-1' }, 'o12');
    assert.deepEqual(await run('ops', 'provision_vm', { size: 'small', region: 'us-east-1' }, 'o12'), vm);
    assert.equal((vm.vm as { size: string }).size, 'large');
  });
});

describe('sql-analyst', () => {
  test('queries the seeded sample database', async () => {
    const result = await run(
      'sql-analyst',
      'execute_sql_query',
      { sql: 'SELECT COUNT(*) AS n FROM orders' },
      's1',
    );
    assert.equal(result.ok, true);
    assert.deepEqual(result.rows, [{ n: 300 }]);
  });

  test('the database is read-only', async () => {
    for (const sql of [
      'DELETE FROM orders',
      "UPDATE customers SET name = 'x'",
      'DROP TABLE orders',
      "ATTACH 'x.db' AS x",
      'PRAGMA journal_mode = DELETE',
    ]) {
      const result = await run('sql-analyst', 'execute_sql_query', { sql }, `s-${sql}`);
      assert.equal(result.ok, false, sql);
    }
    const count = await run(
      'sql-analyst',
      'execute_sql_query',
      { sql: 'SELECT COUNT(*) AS n FROM orders' },
      's2',
    );
    assert.deepEqual(count.rows, [{ n: 300 }]);
  });

  test('large results are capped', async () => {
    const result = await run('sql-analyst', 'execute_sql_query', { sql: 'SELECT * FROM orders' }, 's3');
    assert.equal(result.rowCount, 300);
    assert.equal((result.rows as unknown[]).length, 100);
    assert.equal(result.truncated, true);
  });
});

describe('support-email', () => {
  test('send_email writes one .eml into the outbox per idempotency key', async () => {
    const args = { to: 'customer@example.com', subject: 'Your refund', body: 'It went through.' };
    const first = await run('support-email', 'send_email', args, 'e1');
    const second = await run('support-email', 'send_email', args, 'e1');
    assert.equal(second.file, first.file);
    assert.equal(second.alreadySent, true);
    const files = readdirSync(path.join(dataDir, 'outbox'));
    assert.equal(files.length, 1);
    const eml = readFileSync(String(first.file), 'utf8');
    assert.match(eml, /^To: customer@example\.com$/m);
    assert.match(eml, /^Subject: Your refund$/m);
    assert.match(eml, /It went through\./);
  });
});
