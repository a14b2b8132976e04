// A deliberately changed agent workflow: a timer before the run starts. Every recorded history
// must fail to replay against it.
import { sleep } from '@temporalio/workflow';
import { agentWorkflow as original } from 'countersign/workflow';

export async function agentWorkflow(...args: Parameters<typeof original>): ReturnType<typeof original> {
  await sleep('1 second');
  return original(...args);
}
