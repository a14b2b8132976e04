// Slack's Edit modal (issue 43): each editable argument as the Block Kit input for its type,
// prefilled; what is submitted read back into the whole arguments; field errors under their inputs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { editModal, modalErrors, readEdit } from '../../api/slack/edit-modal.js';
import type { ViewSubmission } from '../../api/slack/payloads.js';
import type { ApprovalView } from '../../protocol/index.js';

const parameters = z.object({
  count: z.number().int(),
  ratio: z.number(),
  name: z.string().describe('Who it is for'),
  level: z.enum(['low', 'high']),
  urgent: z.boolean().optional(),
  tags: z.array(z.string()),
  account: z.string(),
});

const args = {
  count: 3,
  ratio: 0.5,
  name: 'Ann',
  level: 'low',
  urgent: true,
  tags: ['a', 'b'],
  account: 'ACME-1',
};

const approval: ApprovalView = {
  trackingId: 'run-1.call-1',
  runId: 'run-1',
  agent: 'a',
  kind: 'call',
  tool: 'thing',
  toolCallId: 'call-1',
  args,
  description: 'Do a thing',
  schema: z.toJSONSchema(parameters) as Record<string, unknown>,
  allowedDecisions: ['approve', 'edit', 'reject'],
  editableFields: ['count', 'ratio', 'name', 'level', 'urgent', 'tags'],
  approvers: ['admin'],
  requiredApprovals: 1,
  requirements: [{ roles: ['admin'], count: 1, reason: 'thing: its policy' }],
  revision: 4,
  approvals: [],
  allowSelfApproval: false,
  requestedAt: '2030-01-01T00:00:00.000Z',
  deadline: '2030-01-02T00:00:00.000Z',
  onTimeout: { action: 'reject' },
  escalated: false,
  status: 'pending',
};

type Input = { type: string; block_id?: string; optional?: boolean; element?: Record<string, unknown> };

test('each editable argument is the input for its type, prefilled; a locked one is listed as it stays', () => {
  const modal = editModal(
    approval,
    { trackingId: approval.trackingId, revision: 4 },
    'https://hooks.example/r',
  )!;
  assert.equal(modal.callback_id, 'countersign_edit');
  assert.deepEqual(JSON.parse(modal.private_metadata!), {
    trackingId: 'run-1.call-1',
    revision: 4,
    responseUrl: 'https://hooks.example/r',
  });
  const inputs = new Map(
    (modal.blocks as Input[]).filter((b) => b.type === 'input').map((b) => [b.block_id!, b]),
  );
  const element = (block: string) => inputs.get(block)?.element;
  assert.deepEqual(
    [...inputs.keys()],
    ['arg:count', 'arg:ratio', 'arg:name', 'arg:level', 'arg:urgent', 'arg:tags', 'note'],
  );
  assert.deepEqual(element('arg:count'), {
    type: 'number_input',
    action_id: 'number',
    is_decimal_allowed: false,
    initial_value: '3',
  });
  assert.equal(element('arg:ratio')?.is_decimal_allowed, true);
  assert.equal(element('arg:ratio')?.initial_value, '0.5');
  assert.equal(element('arg:name')?.type, 'plain_text_input');
  assert.equal(element('arg:name')?.initial_value, 'Ann');
  assert.equal(element('arg:level')?.type, 'static_select');
  assert.deepEqual(element('arg:level')?.initial_option, {
    text: { type: 'plain_text', text: 'low', emoji: false },
    value: '"low"',
  });
  assert.deepEqual(
    (element('arg:urgent')?.options as { value: string }[]).map((o) => o.value),
    ['true', 'false'],
  );
  assert.equal(inputs.get('arg:urgent')?.optional, true);
  assert.equal(inputs.get('arg:name')?.optional, false);
  assert.equal(element('arg:tags')?.action_id, 'json');
  assert.deepEqual(JSON.parse(String(element('arg:tags')?.initial_value)), ['a', 'b']);
  const kept = (modal.blocks as { text?: { text: string } }[]).find((b) =>
    b.text?.text.startsWith('Not edited here'),
  );
  assert.equal(kept?.text?.text, 'Not edited here:\naccount: "ACME-1"');
});

/** A submission of the modal, its inputs as Slack sends their state. */
function submitted(values: ViewSubmission['view']['state']['values']): ViewSubmission['view'] {
  return { id: 'V1', callback_id: 'countersign_edit', private_metadata: '{}', state: { values } };
}

test('a submission is read back into the whole arguments; what is no value is said under its input', () => {
  const view = submitted({
    'arg:count': { number: { value: '7' } },
    'arg:level': { choice: { selected_option: { value: '"high"' } } },
    'arg:urgent': { choice: { selected_option: null } },
    'arg:tags': { json: { value: '["c"]' } },
    'arg:name': { text: { value: 'Bo' } },
    note: { message: { value: ' fewer ' } },
  });
  assert.deepEqual(readEdit(view, args), {
    args: { count: 7, ratio: 0.5, name: 'Bo', level: 'high', tags: ['c'], account: 'ACME-1' },
    errors: [],
    message: 'fewer',
  });
  const broken = submitted({
    'arg:count': { number: { value: 'seven' } },
    'arg:tags': { json: { value: '[c' } },
  });
  const { errors } = readEdit(broken, args);
  assert.deepEqual(errors, [
    { path: '/args/count', message: 'must be a number' },
    { path: '/args/tags', message: 'is not valid JSON' },
  ]);
  assert.deepEqual(
    modalErrors(broken, [
      ...errors,
      { path: '/args/tags/0', message: 'too short' },
      { path: '/args', message: 'whole' },
    ]),
    { 'arg:count': 'must be a number; /args: whole', 'arg:tags': 'is not valid JSON; 0: too short' },
  );
});
