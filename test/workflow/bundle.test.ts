import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { ApprovalPolicy, DecisionSignal } from '../../protocol/index.js';
import { DECISION_SIGNAL_SCHEMA, DEFAULT_POLICY } from '../../protocol/generated/workflow-schemas.js';
import { bundleWorkflows } from '../../worker/index.js';

test('the schemas the workflow carries are the ones zod derives (npm run generate rewrites them)', () => {
  assert.deepEqual(DECISION_SIGNAL_SCHEMA, z.toJSONSchema(DecisionSignal));
  assert.deepEqual(DEFAULT_POLICY, ApprovalPolicy.parse({}));
});

test('the workflow bundle carries no zod: the SDK evaluates its modules again for every run', async () => {
  const { code } = await bundleWorkflows();
  const packages = new Set(
    [...code.matchAll(/"\.\/node_modules\/((?:@[^/"]+\/)?[^/"]+)\//g)].map((m) => m[1]),
  );
  assert.ok(packages.has('@temporalio/workflow'), `packages found: ${[...packages].join(', ')}`);
  assert.ok(!packages.has('zod'), `zod is in the workflow bundle: ${[...packages].join(', ')}`);
});
