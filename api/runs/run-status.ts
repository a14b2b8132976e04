import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES, type RunStatus } from '../../protocol/index.js';

const Status = proto.temporal.api.enums.v1.WorkflowExecutionStatus;

const OWN = SEARCH_ATTRIBUTES.status.name;

/**
 * A run's status from its list entry: Temporal's execution status, refined by the run's own status
 * attribute. A run ends by completing even when it failed or was cancelled in Countersign's terms.
 */
export function runStatusOf(execution: number | null | undefined, own: unknown): RunStatus {
  switch (execution) {
    case Status.WORKFLOW_EXECUTION_STATUS_RUNNING:
      return own === 'waiting' || own === 'paused' ? own : 'running';
    case Status.WORKFLOW_EXECUTION_STATUS_COMPLETED:
      return own === 'failed' || own === 'cancelled' ? own : 'completed';
    case Status.WORKFLOW_EXECUTION_STATUS_CANCELED:
      return 'cancelled';
    default:
      return 'failed';
  }
}

/**
 * The list-filter clause selecting exactly the runs `runStatusOf` gives this status, so a status
 * filter pages like any other. Missing attributes are spelled out with IS NULL: SQL visibility
 * stores never match `!=` or NOT IN against them, Elasticsearch always does.
 */
export function runStatusClause(status: RunStatus): string {
  const unset = `${OWN} IS NULL`;
  switch (status) {
    case 'waiting':
      return `(ExecutionStatus = 'Running' AND ${OWN} = 'waiting')`;
    case 'paused':
      return `(ExecutionStatus = 'Running' AND ${OWN} = 'paused')`;
    case 'running':
      return `(ExecutionStatus = 'Running' AND (${unset} OR ${OWN} NOT IN ('waiting', 'paused')))`;
    case 'completed':
      return `(ExecutionStatus = 'Completed' AND (${unset} OR ${OWN} NOT IN ('failed', 'cancelled')))`;
    case 'cancelled':
      return `(ExecutionStatus = 'Canceled' OR (ExecutionStatus = 'Completed' AND ${OWN} = 'cancelled'))`;
    case 'failed':
      return `(ExecutionStatus NOT IN ('Running', 'Completed', 'Canceled') OR (ExecutionStatus = 'Completed' AND ${OWN} = 'failed'))`;
  }
}
