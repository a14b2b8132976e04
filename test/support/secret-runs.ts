import type { ApprovalView } from '../../protocol/index.js';
import { call, calls, say } from './fake-model.js';
import { tokens } from './api-agents.js';
import type { Stack } from './stack.js';
import { waitFor } from './wait-for.js';

/** The run's next pending approval of kind `secret`, other than those `seen`. */
export const pendingSecret = (stack: Stack, runId: string, seen: string[] = []): Promise<ApprovalView> =>
  waitFor(
    async () =>
      (await stack.waitForPending(runId)).find((a) => a.kind === 'secret' && !seen.includes(a.trackingId)),
    'a secret to be asked for',
  );

/**
 * Bob asks the test `dba` agent for a report: `run_report` needs the database password before it
 * runs, asked of the admins; the model then repeats what the tool said.
 */
export async function reportRun(
  stack: Stack,
  input: string,
): Promise<{ runId: string; approval: ApprovalView }> {
  const runId = await stack.startRun(
    'dba',
    input,
    tokens.bob,
    calls(call('run_report', { report: 'revenue' }, 'c1')),
    (request) => say(`tool said: ${request.messages.at(-1)?.content}`),
  );
  return { runId, approval: await pendingSecret(stack, runId) };
}
