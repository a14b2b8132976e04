import type { ServerUnaryCall } from '@grpc/grpc-js';
import {
  cancelActivity,
  completeActivity,
  failActivity,
  heartbeatActivity,
  locateActivity,
  pollActivityTaskQueue,
} from '../activities.js';
import type { Engine } from '../engine.js';
import { invalid, notFound } from '../errors.js';
import type { UnaryHandler } from '../grpc-service.js';
import { getHistory, getHistoryReverse } from '../history-read.js';
import {
  requestCancelWorkflow,
  signalWithStart,
  signalWorkflow,
  startWorkflow,
  terminateWorkflow,
} from '../lifecycle.js';
import { queryWorkflow } from '../queries.js';
import { pollUpdate, updateWorkflow } from '../updates.js';
import { decodeToken } from '../tokens.js';
import { countWorkflows, describeWorkflow, listWorkflows } from '../visibility.js';
import {
  pollWorkflowTaskQueue,
  respondWorkflowTaskCompleted,
  respondWorkflowTaskFailed,
} from '../workflow-tasks.js';
import { describeNamespace, namespaceId } from './namespace.js';

export const SERVER_VERSION = '1.24.0-countersign-devserver';

const onCancel = (call: ServerUnaryCall<unknown, unknown>) => (cb: () => void) => {
  call.on('cancelled', cb);
};

/** The WorkflowService methods the devserver implements; the rest answer UNIMPLEMENTED. */
export function workflowServiceHandlers(engine: Engine): Record<string, UnaryHandler> {
  return {
    GetSystemInfo: () => ({
      serverVersion: SERVER_VERSION,
      capabilities: {
        signalAndQueryHeader: true,
        internalErrorDifferentiation: false,
        activityFailureIncludeHeartbeat: true,
        supportsSchedules: false,
        encodedFailureAttributes: true,
        buildIdBasedVersioning: false,
        upsertMemo: true,
        eagerWorkflowStart: false,
        sdkMetadata: true,
        countGroupByExecutionStatus: true,
        nexus: false,
      },
    }),
    GetClusterInfo: () => ({
      supportedClients: {},
      serverVersion: SERVER_VERSION,
      clusterId: namespaceId('cluster'),
      clusterName: 'active',
      historyShardCount: 1,
      persistenceStore: 'sqlite',
      visibilityStore: 'sqlite',
    }),
    DescribeNamespace: (req) => {
      const name = req.namespace || 'default';
      return describeNamespace(name);
    },
    ListNamespaces: () => ({ namespaces: [describeNamespace('default')] }),
    StartWorkflowExecution: (req) => startWorkflow(engine, req),
    SignalWithStartWorkflowExecution: (req) => signalWithStart(engine, req),
    SignalWorkflowExecution: (req) => signalWorkflow(engine, req),
    RequestCancelWorkflowExecution: (req) => requestCancelWorkflow(engine, req),
    TerminateWorkflowExecution: (req) => terminateWorkflow(engine, req),
    QueryWorkflow: (req) => queryWorkflow(engine, req),
    UpdateWorkflowExecution: (req, call) => updateWorkflow(engine, req, onCancel(call)),
    PollWorkflowExecutionUpdate: (req, call) => pollUpdate(engine, req, onCancel(call)),
    RespondQueryTaskCompleted: (req) => {
      const t = decodeToken(req.taskToken, 'q');
      const q = t.k === 'q' ? engine.queries.get(t.q) : undefined;
      if (!q) throw notFound('query not found: it was answered, timed out, or abandoned');
      q.answer(req.completedType ?? 0, req.queryResult, req.errorMessage);
      return {};
    },
    DescribeWorkflowExecution: (req) => describeWorkflow(engine, req),
    GetWorkflowExecutionHistory: (req, call) => getHistory(engine, req, onCancel(call)),
    GetWorkflowExecutionHistoryReverse: (req) => getHistoryReverse(engine, req),
    ListWorkflowExecutions: (req) => listWorkflows(engine, req),
    ScanWorkflowExecutions: (req) => listWorkflows(engine, req),
    CountWorkflowExecutions: (req) => countWorkflows(engine, req),
    GetSearchAttributes: () => {
      const { custom, system } = engine.registry.list('default');
      return { keys: { ...system, ...custom } };
    },
    PollWorkflowTaskQueue: (req, call) => pollWorkflowTaskQueue(engine, req, onCancel(call)),
    RespondWorkflowTaskCompleted: (req) => respondWorkflowTaskCompleted(engine, req),
    RespondWorkflowTaskFailed: (req) => respondWorkflowTaskFailed(engine, req),
    PollActivityTaskQueue: (req, call) => pollActivityTaskQueue(engine, req, onCancel(call)),
    RecordActivityTaskHeartbeat: (req) =>
      heartbeatActivity(
        engine,
        locateActivity(engine, { taskToken: req.taskToken ?? invalidToken() }),
        req.details,
      ),
    RecordActivityTaskHeartbeatById: (req) =>
      heartbeatActivity(engine, locateActivity(engine, { ...req, taskToken: null }), req.details),
    RespondActivityTaskCompleted: (req) => {
      completeActivity(
        engine,
        locateActivity(engine, { taskToken: req.taskToken ?? invalidToken() }),
        req.result,
        req.identity ?? '',
      );
      return {};
    },
    RespondActivityTaskCompletedById: (req) => {
      completeActivity(
        engine,
        locateActivity(engine, { ...req, taskToken: null }),
        req.result,
        req.identity ?? '',
      );
      return {};
    },
    RespondActivityTaskFailed: (req) => {
      const loc = locateActivity(engine, { taskToken: req.taskToken ?? invalidToken() });
      failActivity(engine, loc, req.failure, req.lastHeartbeatDetails, req.identity ?? '');
      return {};
    },
    RespondActivityTaskFailedById: (req) => {
      const loc = locateActivity(engine, { ...req, taskToken: null });
      failActivity(engine, loc, req.failure, req.lastHeartbeatDetails, req.identity ?? '');
      return {};
    },
    RespondActivityTaskCanceled: (req) => {
      cancelActivity(
        engine,
        locateActivity(engine, { taskToken: req.taskToken ?? invalidToken() }),
        req.details,
        req.identity ?? '',
      );
      return {};
    },
    RespondActivityTaskCanceledById: (req) => {
      cancelActivity(
        engine,
        locateActivity(engine, { ...req, taskToken: null }),
        req.details,
        req.identity ?? '',
      );
      return {};
    },
    ShutdownWorker: (req) => {
      if (req.stickyTaskQueue) engine.dropStickyQueue(req.namespace || 'default', req.stickyTaskQueue);
      return {};
    },
    ResetStickyTaskQueue: (req) => {
      const run = engine.findRun(req.namespace || 'default', req.execution);
      if (run.sticky) engine.dropStickyQueue(run.s.namespace, run.sticky.queue);
      return {};
    },
  };
}

function invalidToken(): never {
  throw invalid('taskToken is required');
}
