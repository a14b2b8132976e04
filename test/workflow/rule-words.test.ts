// Issue 40: the policy's rule reads as words in every channel ("amount over $1,000 and at most
// $100,000"), never as an expression ("not (amount > 100000) and amount > 1000").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolSpec, type ApprovalPolicyInput, type Condition } from '../../protocol/index.js';
import { conditionWords, currencySigns } from '../../protocol/rule-words.js';
import { unmeetableRequirements } from '../../protocol/unmeetable.js';
import { evaluatePolicy } from '../../workflows/evaluate-policy.js';

const dollars = { currency: currencySigns('Transfer ${{amount}} from {{from}} to {{to}}') };
const amount = (op: 'gt' | 'gte' | 'lt' | 'lte', value: number): Condition => ({ arg: 'amount', op, value });

describe('a condition in words', () => {
  it('says a tier between two bounds as one range, the lower first, and a negation as what it means', () => {
    const between: Condition = { all: [{ not: amount('gt', 100_000) }, amount('gt', 1000)] };
    assert.equal(conditionWords(between), 'amount over 1000 and at most 100000');
    assert.equal(conditionWords(between, dollars), 'amount over $1,000 and at most $100,000');
    assert.equal(conditionWords({ not: amount('gte', 50) }), 'amount under 50');
    assert.equal(conditionWords({ not: amount('lt', 50) }), 'amount at least 50');
    // The tighter of two bounds on one side is the one that counts.
    assert.equal(
      conditionWords({ all: [{ not: amount('gt', 100_000) }, { not: amount('gt', 10_000) }] }),
      'amount at most 10000',
    );
  });

  it('shows money with its sign only where the policy says it is money', () => {
    assert.equal(conditionWords(amount('gt', 2500.5), dollars), 'amount over $2,500.50');
    assert.equal(conditionWords({ arg: 'from', op: 'eq', value: 1000 }, dollars), 'from is 1000');
    assert.equal(
      conditionWords(amount('gt', 1000), { currency: currencySigns('Pay {{amount}}') }),
      'amount over 1000',
    );
    assert.equal(currencySigns('Refund €{{ amount }}')('amount'), '€');
  });

  it('says running totals and counts of the run', () => {
    assert.equal(
      conditionWords({ runTotal: 'amount', op: 'gt', value: 1000 }),
      "the run's total of amount over 1000",
    );
    assert.equal(conditionWords({ runCount: true, op: 'gt', value: 3 }), 'more than 3 calls in this run');
    assert.equal(
      conditionWords({
        all: [
          { runCount: true, op: 'gt', value: 3 },
          { runCount: true, op: 'lte', value: 10 },
        ],
      }),
      'more than 3 and at most 10 calls in this run',
    );
    assert.equal(
      conditionWords({ runTotal: 'amount', op: 'gt', value: 1000 }, { ...dollars, now: () => 1200 }),
      "the run's total of amount ($1,200 with this call) over $1,000",
    );
  });

  it('says lists, equality, patterns and presence, and negates them', () => {
    const suppliers: Condition = { arg: 'supplier', op: 'in', value: ['acme', 'globex'] };
    assert.equal(conditionWords(suppliers), 'supplier is one of acme, globex');
    assert.equal(conditionWords({ not: suppliers }), 'supplier is none of acme, globex');
    assert.equal(conditionWords({ arg: 'env', op: 'eq', value: 'prod' }), 'env is prod');
    assert.equal(conditionWords({ not: { arg: 'env', op: 'eq', value: 'prod' } }), 'env is not prod');
    assert.equal(conditionWords({ arg: 'note', op: 'eq', value: 'two words' }), 'note is "two words"');
    assert.equal(conditionWords({ not: { arg: 'receipt.id', op: 'exists' } }), 'receipt.id is not set');
    assert.equal(conditionWords({ arg: 'sql', op: 'matches', value: '^DROP' }), 'sql matches /^DROP/');
    assert.equal(
      conditionWords({ not: { any: [suppliers, { arg: 'urgent', op: 'eq', value: true }] } }),
      'supplier is none of acme, globex and urgent is not true',
    );
    assert.equal(
      conditionWords({
        all: [amount('gt', 1000), { any: [suppliers, { arg: 'urgent', op: 'eq', value: true }] }],
      }),
      'amount over 1000 and (supplier is one of acme, globex or urgent is true)',
    );
  });
});

describe('the rule the workflow gives an approval', () => {
  const parameters = { type: 'object', properties: { amount: { type: 'number' } } };
  const tool = (approval: ApprovalPolicyInput) =>
    ToolSpec.parse({ name: 'transfer', description: '', parameters, approval });
  const tiers: ApprovalPolicyInput['when'] = {
    if: amount('gt', 100_000),
    then: { approve: { name: 'large transfer', requiredApprovals: 2 } },
    else: { if: amount('gt', 1000), then: 'approve', else: 'auto' },
  };

  it('is the path the policy took, in words, with a currency sign where the description shows one', () => {
    assert.equal(
      evaluatePolicy(tool({ when: tiers }), { amount: 2500 }).because,
      'transfer: amount over 1000 and at most 100000',
    );
    const money = tool({ when: tiers, description: 'Transfer ${{amount}}' });
    assert.equal(
      evaluatePolicy(money, { amount: 2500 }).because,
      'transfer: amount over $1,000 and at most $100,000',
    );
    assert.equal(evaluatePolicy(money, { amount: 250_000 }).because, 'transfer: amount over $100,000');
    assert.equal(evaluatePolicy(money, { amount: 10 }).because, 'transfer: amount at most $1,000');
  });
});

describe('requirements nobody can meet', () => {
  const large = { roles: ['treasury'], count: 2, reason: 'pay: amount over 100000', tier: 'large payment' };
  const people = [
    { id: 'tess', roles: ['treasury'] },
    { id: 'ted', roles: ['treasury', 'admin'] },
    { id: 'ann', roles: ['admin'] },
  ];

  it('counts those who hold a role and may sign', () => {
    assert.deepEqual(unmeetableRequirements([large], people, { allowSelfApproval: false }), []);
    assert.deepEqual(unmeetableRequirements([large], people.slice(1), { allowSelfApproval: false }), [
      'large payment (pay: amount over 100000) needs 2 approvers with role treasury; only 1 exists',
    ]);
    assert.deepEqual(
      unmeetableRequirements([{ ...large, roles: ['cfo'], count: 1 }], people, { allowSelfApproval: false }),
      ['large payment (pay: amount over 100000) needs 1 approver with role cfo; none exists'],
    );
  });

  it('leaves out the requester unless self-approval is allowed, and those a requirement bars', () => {
    assert.deepEqual(
      unmeetableRequirements([large], people, { requester: 'tess', allowSelfApproval: false }),
      [
        'large payment (pay: amount over 100000) needs 2 approvers with role treasury; only 1 may sign it (tess requested the run)',
      ],
    );
    assert.deepEqual(
      unmeetableRequirements([large], people, { requester: 'tess', allowSelfApproval: true }),
      [],
    );
    assert.deepEqual(
      unmeetableRequirements([{ ...large, notBy: ['ted'] }], people, {
        requester: 'tess',
        allowSelfApproval: false,
      }),
      [
        'large payment (pay: amount over 100000) needs 2 approvers with role treasury; none may sign it (tess requested the run, ted proposed what it covers)',
      ],
    );
  });
});
