import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import proto from '@temporalio/proto';

const ListAnswer = proto.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;

/**
 * Counts, per workflow id, the list answers (ListWorkflowExecutions) a run was in: the rows a
 * client's lists cost the server for it. The client's messages reach interceptors as bytes.
 */
export function countListedRuns(): { interceptor: Interceptor; listed(runId: string): number } {
  const counts = new Map<string, number>();
  const interceptor: Interceptor = (options, nextCall) => {
    if (!options.method_definition.path.endsWith('/ListWorkflowExecutions'))
      return new InterceptingCall(nextCall(options));
    return new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        next(metadata, {
          onReceiveMessage(message: Buffer, deliver: (message: Buffer) => void) {
            for (const info of ListAnswer.decode(message).executions) {
              const runId = info.execution?.workflowId ?? '';
              counts.set(runId, (counts.get(runId) ?? 0) + 1);
            }
            deliver(message);
          },
        });
      },
    });
  };
  return { interceptor, listed: (runId) => counts.get(runId) ?? 0 };
}
