import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolSpec, type ApprovalPolicyInput } from '../../protocol/index.js';
import { diffJson } from '../../workflows/arg-diff.js';
import { evaluatePolicy, verdictOf } from '../../workflows/evaluate-policy.js';
import { validateAgainstSchema } from '../../workflows/validate-args.js';

const parameters = { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] };

function tool(approval?: ApprovalPolicyInput, safe = false) {
  return ToolSpec.parse({ name: 't', description: '', parameters, safe, approval });
}

describe('policy evaluation (pure workflow code)', () => {
  it('is safe by default: no policy means a human decides', () => {
    assert.equal(verdictOf(tool(), { amount: 1 }), 'approve');
    assert.equal(verdictOf(tool(undefined, true), { amount: 1 }), 'auto');
    assert.equal(verdictOf(tool({ when: 'deny' }), { amount: 1 }), 'deny');
  });

  it('chooses by the arguments', () => {
    const overLimit = tool({
      when: { if: { arg: 'amount', op: 'gt', value: 1000 }, then: 'approve', else: 'auto' },
    });
    assert.equal(verdictOf(overLimit, { amount: 2500 }), 'approve');
    assert.equal(verdictOf(overLimit, { amount: 1000 }), 'auto');
    // A missing or mistyped argument never slips through as "under the limit".
    const guarded = tool({
      when: { if: { arg: 'amount', op: 'lte', value: 1000 }, then: 'auto', else: 'approve' },
    });
    assert.equal(verdictOf(guarded, { amount: '5' }), 'approve');
    assert.equal(verdictOf(guarded, {}), 'approve');
  });

  it('combines conditions and reads nested arguments', () => {
    const rule = tool({
      when: {
        if: {
          all: [
            { arg: 'target.env', op: 'in', value: ['prod', 'staging'] },
            { not: { arg: 'command', op: 'matches', value: '^(ls|cat) ' } },
            {
              any: [
                { arg: 'force', op: 'eq', value: true },
                { arg: 'force', op: 'exists' },
              ],
            },
          ],
        },
        then: 'deny',
        else: 'approve',
      },
    });
    assert.equal(verdictOf(rule, { target: { env: 'prod' }, command: 'rm -rf /', force: true }), 'deny');
    assert.equal(verdictOf(rule, { target: { env: 'prod' }, command: 'ls /', force: true }), 'approve');
    assert.equal(verdictOf(rule, { target: { env: 'dev' }, command: 'rm -rf /', force: true }), 'approve');
    const broken = tool({
      when: { if: { arg: 'command', op: 'matches', value: '(' }, then: 'auto', else: 'approve' },
    });
    assert.equal(verdictOf(broken, { command: 'x' }), 'approve');
  });

  it('picks a tier by the arguments, completes it from the tool policy, and says which rule chose it', () => {
    const transfer = tool({
      approvers: ['treasury'],
      deadlineSeconds: 86_400,
      when: {
        if: { arg: 'amount', op: 'gt', value: 100_000 },
        then: {
          approve: { name: 'large', approvers: ['cfo'], requiredApprovals: 2, deadlineSeconds: 14_400 },
        },
        else: { if: { arg: 'amount', op: 'gt', value: 1_000 }, then: 'approve', else: 'auto' },
      },
    });
    assert.deepEqual(evaluatePolicy(transfer, { amount: 250_000 }), {
      verdict: 'approve',
      because: 't: amount over 100000',
      tier: {
        name: 'large',
        approvers: ['cfo'],
        requiredApprovals: 2,
        deadlineSeconds: 14_400,
        onTimeout: { action: 'reject' },
      },
    });
    assert.deepEqual(evaluatePolicy(transfer, { amount: 2_500 }), {
      verdict: 'approve',
      because: 't: amount over 1000 and at most 100000',
      tier: {
        approvers: ['treasury'],
        requiredApprovals: 1,
        deadlineSeconds: 86_400,
        onTimeout: { action: 'reject' },
      },
    });
    assert.deepEqual(evaluatePolicy(transfer, { amount: 10 }), {
      verdict: 'auto',
      because: 't: amount at most 1000',
    });
    assert.throws(() => tool({ when: { approve: { requiredApprovals: 0 } } }));
  });

  it('adds this call to the run so far; a value that is not a number counts past every bound', () => {
    const limited = tool({
      when: { if: { runTotal: 'amount', op: 'gt', value: 1000 }, then: 'approve', else: 'auto' },
    });
    const so = (sum: number, count = 1) => ({ sum: () => sum, count: () => count });
    assert.equal(verdictOf(limited, { amount: 400 }, so(600)), 'auto');
    const over = evaluatePolicy(limited, { amount: 401 }, so(600));
    assert.equal(over.verdict, 'approve');
    assert.match(over.because, /the run's total of amount \(1001 with this call\) over 1000/);
    assert.equal(verdictOf(limited, { amount: '5' }, so(0)), 'approve');
    assert.equal(verdictOf(limited, {}, so(0)), 'auto');
    const counted = tool({
      when: { if: { runCount: true, op: 'gte', value: 3 }, then: 'deny', else: 'auto' },
    });
    assert.equal(verdictOf(counted, { amount: 1 }, so(0, 1)), 'auto');
    assert.equal(verdictOf(counted, { amount: 1 }, so(0, 2)), 'deny');
  });

  it('diffs arguments as JSON pointers and validates against JSON Schema', () => {
    assert.deepEqual(diffJson({ a: 1, b: { 'c/d': [1, 2] } }, { a: 1, b: { 'c/d': [1, 3] }, e: 'x' }), [
      { path: '/b/c~1d/1', before: 2, after: 3 },
      { path: '/e', after: 'x' },
    ]);
    assert.deepEqual(validateAgainstSchema(parameters, { amount: 5 }), []);
    assert.deepEqual(
      validateAgainstSchema(parameters, { amount: 'five' }, '/args').map((e) => e.path),
      ['/args/amount'],
    );
  });
});
