/**
 * A run's description when its memo cannot be decoded here (encrypted under a key this API does not
 * hold): everything else Temporal keeps of it, search attributes included, so who may read it, pause
 * it or cancel it is still decided, and nothing fails for one run the API cannot read.
 */
import {
  Client,
  ServiceError,
  WorkflowNotFoundError,
  type WorkflowClientInterceptor,
  type WorkflowExecutionDescription,
} from '@temporalio/client';

/** Describes without asking the data converter for the memo: the server's answer, less its memo. */
const dropMemo: WorkflowClientInterceptor = {
  async describe(input, next) {
    const raw = await next(input);
    if (raw.workflowExecutionInfo) raw.workflowExecutionInfo.memo = null;
    return raw;
  },
};

const memoLess = new WeakMap<Client, Client>();
const unreadable = new WeakSet<WorkflowExecutionDescription>();

/** Whether this description was read without its memo, which this API could not decode. */
export function memoUnreadable(description: WorkflowExecutionDescription): boolean {
  return unreadable.has(description);
}

/**
 * The run's description; one whose memo does not decode is described again without it (and marked,
 * see `memoUnreadable`). Errors from the server itself are the caller's, as they were.
 */
export async function describeReadable(
  client: Client,
  workflowId: string,
): Promise<WorkflowExecutionDescription> {
  try {
    return await client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if (err instanceof ServiceError || err instanceof WorkflowNotFoundError) throw err;
    let plain = memoLess.get(client);
    if (!plain) {
      plain = new Client({
        connection: client.connection,
        namespace: client.options.namespace,
        dataConverter: client.options.dataConverter,
        interceptors: { workflow: [dropMemo] },
      });
      memoLess.set(client, plain);
    }
    // A description that still fails had something other than its memo wrong: that error stands.
    const description = await plain.workflow
      .getHandle(workflowId)
      .describe()
      .catch(() => {
        throw err;
      });
    unreadable.add(description);
    return description;
  }
}
