import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { toAgentSpec, type AgentDefinition } from '../define/index.js';
import {
  DEFAULT_MODEL,
  DEFAULT_TASK_QUEUE,
  RunInput,
  StartRunRequest,
  type TranscriptMessage,
} from '../protocol/index.js';
import { searchAttributeKeys } from '../workflows/search-attributes.js';

/**
 * What `startRun` needs: the agent and what the user asked. The rest has defaults.
 *
 * @example
 * ```ts
 * import { startRun, type StartRunOptions } from 'countersign/client';
 *
 * const options: StartRunOptions = {
 *   agent: support,
 *   input: 'Refund order A-1042',
 *   requester: 'sam',
 *   taskQueue: 'support',
 * };
 * const { runId } = await startRun(client, options);
 * ```
 */
export interface StartRunOptions {
  agent: AgentDefinition;
  input: string;
  requester?: string;
  taskQueue?: string;
  /** Model for agents that name none; `DEFAULT_MODEL` when absent. */
  defaultModel?: string;
  /** A chosen run id (workflow id); a fresh `run-<uuid>` when absent. */
  runId?: string;
  /** The conversation the model reads before `input` (a chat's earlier turns); none when absent. */
  context?: TranscriptMessage[];
}

/**
 * Starts an agent run on the workers polling `taskQueue`. The run takes a copy of the agent's spec,
 * so later changes never reach it. `requester` is who asked: they may read and cancel the run, and
 * may not approve its calls unless a policy allows self-approval.
 *
 * @example
 * ```ts
 * const { runId } = await startRun(client, { agent: support, input: 'Refund order A-1042', requester: 'sam' });
 * ```
 */
export async function startRun(client: Client, options: StartRunOptions): Promise<{ runId: string }> {
  const request = StartRunRequest.parse({
    agent: options.agent.name,
    input: options.input,
    requester: options.requester,
  });
  const spec = toAgentSpec(options.agent, options.defaultModel ?? DEFAULT_MODEL);
  const input = RunInput.parse({
    agent: spec,
    input: request.input,
    requester: request.requester,
    ...(options.context ? { context: options.context } : {}),
  });
  const runId = options.runId ?? `run-${randomUUID()}`;
  await client.workflow.start('agentWorkflow', {
    workflowId: runId,
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    args: [input],
    // Listed in the inbox and run lists from the first moment, before the workflow's first task.
    typedSearchAttributes: [
      { key: searchAttributeKeys.agent, value: spec.name },
      { key: searchAttributeKeys.status, value: 'running' },
      { key: searchAttributeKeys.pending, value: 0 },
      // Who may read and cancel the run is decided from its listing (see docs/security.md).
      ...(request.requester !== undefined
        ? [{ key: searchAttributeKeys.requester, value: request.requester }]
        : []),
    ],
  });
  return { runId };
}
