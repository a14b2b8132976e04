import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addedStepErrors,
  agentRoles,
  channelRefusal,
  decisionTypeRefusal,
  lockedFieldErrors,
  mayAddToPlan,
  omittedLockedFields,
  policyRoles,
  proposedStepErrors,
  repeatSignoffRefusal,
  roleRefusal,
  selfApprovalRefusal,
  settledRefusal,
  staleRevisionRefusal,
  takesSecret,
  unnamedRevisionRefusal,
} from '../../protocol/decision-rules.js';
import { ApprovalPolicy, type Signoff } from '../../protocol/index.js';

// The one rule set the API checks before it signals and the workflow checks again (issue 41).
const signoff = (approver: string): Signoff => ({
  approver,
  roles: ['finance'],
  revision: 1,
  channel: 'api',
  at: '2026-01-01T00:00:00.000Z',
});

describe('the decision rules the API and the workflow share', () => {
  it('takes a decision only while its approval is pending', () => {
    assert.equal(settledRefusal({ status: 'pending' }), undefined);
    assert.deepEqual(settledRefusal({ status: 'approved' }), {
      code: 'already_settled',
      reason: 'this approval is already approved',
    });
  });

  it('takes a decision only on the revision its author was shown, and named when required', () => {
    assert.equal(unnamedRevisionRefusal(undefined, false), undefined);
    assert.equal(unnamedRevisionRefusal(2, true), undefined);
    assert.equal(unnamedRevisionRefusal(undefined, true)?.code, 'revision_required');
    assert.equal(staleRevisionRefusal({ revision: 2 }, 2), undefined);
    assert.equal(staleRevisionRefusal({ revision: 2 }, undefined), undefined);
    assert.deepEqual(staleRevisionRefusal({ revision: 3 }, 2), {
      code: 'stale_revision',
      reason: 'the proposal changed since you saw it (you saw revision 2; it is now revision 3)',
    });
  });

  it('takes only the decision types the policy allows', () => {
    const view = { allowedDecisions: ['approve' as const, 'reject' as const] };
    assert.equal(decisionTypeRefusal(view, 'reject'), undefined);
    assert.deepEqual(decisionTypeRefusal(view, 'edit'), {
      code: 'decision_not_allowed',
      reason: 'edit is not allowed here; allowed: approve, reject',
    });
  });

  it('never takes a secret, nor its refusal, through an email link', () => {
    assert.equal(channelRefusal('call', 'email', true), undefined);
    assert.equal(channelRefusal('secret', 'inbox', false), undefined);
    assert.equal(channelRefusal('secret', 'cli', false), undefined);
    assert.equal(channelRefusal('secret', 'email', false)?.code, 'decision_not_allowed');
    // A link nonce makes it a link, whatever channel the signal names.
    assert.equal(channelRefusal('secret', 'api', true)?.code, 'decision_not_allowed');
    assert.ok(takesSecret('secret'));
    for (const kind of ['call', 'plan', 'result', 'question', 'outcome'] as const)
      assert.ok(!takesSecret(kind));
  });

  it('lets decide only who holds a role the approval asks for', () => {
    const view = { approvers: ['finance', 'cfo'] };
    assert.equal(roleRefusal(view, ['support', 'cfo']), undefined);
    assert.deepEqual(roleRefusal(view, ['support']), {
      code: 'role_not_allowed',
      reason: 'deciding this needs one of the roles: finance, cfo',
    });
    assert.equal(roleRefusal(view, [])?.code, 'role_not_allowed');
  });

  it('lets a requester refuse their own call, and approve it only by the policy’s leave', () => {
    const call = { kind: 'call' as const, allowSelfApproval: false };
    assert.equal(selfApprovalRefusal(call, 'bob', 'bob', 'approve')?.code, 'self_approval');
    assert.equal(selfApprovalRefusal(call, 'bob', 'bob', 'edit')?.code, 'self_approval');
    assert.equal(selfApprovalRefusal(call, 'bob', 'bob', 'reject'), undefined);
    assert.equal(selfApprovalRefusal(call, 'ann', 'bob', 'approve'), undefined);
    assert.equal(selfApprovalRefusal(call, 'bob', undefined, 'approve'), undefined);
    assert.equal(
      selfApprovalRefusal({ ...call, allowSelfApproval: true }, 'bob', 'bob', 'approve'),
      undefined,
    );
    // The requester often knows the answer to a question or the secret.
    assert.equal(selfApprovalRefusal({ ...call, kind: 'question' }, 'bob', 'bob', 'respond'), undefined);
    assert.equal(selfApprovalRefusal({ ...call, kind: 'secret' }, 'bob', 'bob', 'respond'), undefined);
  });

  it('counts one sign-off per person toward a quorum', () => {
    const view = { approvals: [signoff('ann')] };
    assert.equal(repeatSignoffRefusal(view, 'ann', 'approve')?.code, 'already_approved_by_you');
    assert.equal(repeatSignoffRefusal(view, 'ann', 'edit')?.code, 'already_approved_by_you');
    assert.equal(repeatSignoffRefusal(view, 'ann', 'reject'), undefined);
    assert.equal(repeatSignoffRefusal(view, 'bob', 'approve'), undefined);
  });
});

describe('the fields an edit may change', () => {
  const proposed = { to: 'ann', amount: 10, memo: { a: 1, b: [1, 2] } };

  it('refuses a change to a locked field, at its JSON pointer, and none where every field is editable', () => {
    const edited = { to: 'eve', amount: 20, memo: { a: 1, b: [1, 2] } };
    assert.deepEqual(lockedFieldErrors(['amount'], proposed, edited, ['args']), [
      { path: '/args/to', message: 'to may not be edited' },
    ]);
    assert.deepEqual(lockedFieldErrors(undefined, proposed, edited, ['args']), []);
    assert.deepEqual(lockedFieldErrors(['amount', 'to'], proposed, edited, ['args']), []);
  });

  it('sees a locked field removed or added as changed, and reordered keys as unchanged', () => {
    const withoutTo = { amount: proposed.amount, memo: proposed.memo };
    assert.deepEqual(
      lockedFieldErrors(['amount'], proposed, { ...withoutTo, extra: true }, ['plan', 2, 'args']).map(
        (e) => e.path,
      ),
      ['/plan/2/args/extra', '/plan/2/args/to'],
    );
    const reordered = { memo: { b: [1, 2], a: 1 }, amount: 10, to: 'ann' };
    assert.deepEqual(lockedFieldErrors(['amount'], proposed, reordered, ['args']), []);
    assert.deepEqual(
      lockedFieldErrors(['amount'], proposed, { ...proposed, memo: { a: 1, b: [2, 1] } }, ['args']).map(
        (e) => e.path,
      ),
      ['/args/memo'],
    );
    // A field name is one pointer segment, escaped.
    assert.deepEqual(lockedFieldErrors([], { 'a/b': 1 }, { 'a/b': 2 }, ['args']), [
      { path: '/args/a~1b', message: 'a/b may not be edited' },
    ]);
  });

  it('names the locked fields an edit left out', () => {
    assert.deepEqual(omittedLockedFields(['amount'], proposed, { amount: 20 }), ['to', 'memo']);
    assert.deepEqual(omittedLockedFields(['amount'], proposed, { ...proposed, amount: 20 }), []);
    assert.deepEqual(omittedLockedFields(undefined, proposed, {}), []);
    // An editable field left out is removed, as the edit may.
    assert.deepEqual(omittedLockedFields(['amount'], proposed, { to: 'ann', memo: proposed.memo }), []);
  });
});

describe('the steps of an edited plan', () => {
  const approveOnly = { approval: ApprovalPolicy.parse({ decisions: ['approve', 'reject'] }) };
  const lockedTo = { approval: ApprovalPolicy.parse({ editableFields: ['amount'] }) };

  it('adds a step only of a safe tool or one whose policy allows edits', () => {
    assert.ok(mayAddToPlan({ safe: true }));
    assert.ok(mayAddToPlan({}));
    assert.ok(!mayAddToPlan(approveOnly));
    const added = { tool: 'pay', args: { amount: 5 } };
    assert.deepEqual(addedStepErrors(added, approveOnly, 1), [
      { path: '/plan/1/tool', message: 'pay calls may not be added to a plan: its policy allows no edit' },
    ]);
    assert.deepEqual(addedStepErrors(added, lockedTo, 1), []);
    // A proposed step is not an addition.
    assert.deepEqual(addedStepErrors({ ...added, toolCallId: 'call_1' }, approveOnly, 1), []);
  });

  it('changes a proposed step only as its policy lets a single call change', () => {
    const step = { tool: 'pay', args: { to: 'ann', amount: 7 }, toolCallId: 'call_1' };
    const before = { to: 'ann', amount: 5 };
    assert.deepEqual(proposedStepErrors(step, approveOnly, before, 0), [
      { path: '/plan/0/args', message: 'pay calls may not be edited' },
    ]);
    assert.deepEqual(proposedStepErrors(step, approveOnly, step.args, 0), []);
    assert.deepEqual(proposedStepErrors(step, lockedTo, before, 0), []);
    assert.deepEqual(proposedStepErrors({ ...step, args: { to: 'eve', amount: 5 } }, lockedTo, before, 0), [
      { path: '/plan/0/args/to', message: 'to may not be edited' },
    ]);
    assert.deepEqual(
      proposedStepErrors({ ...step, args: { to: 'eve', amount: 5 } }, { safe: true }, before, 0),
      [],
    );
  });
});

describe('the roles that may decide', () => {
  it('are every role a policy’s outcomes and escalations name', () => {
    const policy = ApprovalPolicy.parse({
      approvers: ['support'],
      onTimeout: { action: 'escalate', approvers: ['lead'], deadlineSeconds: 60 },
      when: {
        if: { arg: 'amount', op: 'gt', value: 1000 },
        then: { approve: { approvers: ['finance'], onTimeout: { action: 'reject' } } },
        else: { if: { arg: 'amount', op: 'gt', value: 100 }, then: 'approve', else: 'auto' },
      },
    });
    assert.deepEqual([...policyRoles(policy)].sort(), ['finance', 'lead', 'support']);
    assert.deepEqual([...policyRoles(ApprovalPolicy.parse({ when: 'deny' }))], []);
  });

  it('are those of an agent’s gated tools, and the default ones for its questions', () => {
    const finance = ApprovalPolicy.parse({ approvers: ['finance'] });
    const defaults = [...policyRoles(ApprovalPolicy.parse({}))];
    assert.deepEqual([...agentRoles({ tools: [{ safe: true }] })], []);
    assert.deepEqual([...agentRoles({ tools: [{ approval: finance }] })], ['finance']);
    assert.deepEqual([...agentRoles({ tools: [{}] })], defaults);
    assert.deepEqual(
      [...agentRoles({ tools: [{ approval: finance }], askHuman: true })].sort(),
      [...new Set(['finance', ...defaults])].sort(),
    );
  });
});
