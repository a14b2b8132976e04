import {
  ChildWorkflowFailure,
  defineSignal,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  setHandler,
  startChild,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type {
  AgentSpec,
  ApprovalView,
  RunControl,
  RunInput,
  RunOutput,
  SubAgentChain,
  SubAgentFailureCode,
} from '../protocol/index.js';
import { MAX_SUB_AGENT_DEPTH } from '../protocol/sub-agent-depth.js';
import type { ModelTool } from './activity-types.js';
import type { agentWorkflow } from './agent-workflow.js';
import { cancelSignal, pauseSignal, resumeSignal } from './definitions.js';
import { isRunId } from '../protocol/tracking-id.js';
import type { RunLog } from './run-log.js';
import { searchAttributeKeys } from './search-attributes.js';
import { failedMessage } from './tool-messages.js';

/**
 * What a sub-agent's run tells the run that called it, whenever the approvals it waits on change:
 * its own pending approvals and those of its own sub-agents, each showing its chain. `seq` orders
 * them: a signal overtaken by a later one changes nothing.
 */
export interface SubAgentPending {
  runId: string;
  seq: number;
  pending: ApprovalView[];
}

/** The signal a sub-agent's run sends the run that called it (see {@link SubAgentPending}). */
export const subAgentPendingSignal = defineSignal<[SubAgentPending]>('subAgentPending');

/**
 * The workflow id of the run a call starts: the caller's id and the call's, so a tracking id of the
 * sub-agent's approvals routes by itself. An id that would not be a run id (a call id with other
 * characters, a long chain) takes a digest of both instead, as deterministic.
 */
export function childRunId(parentRunId: string, toolCallId: string): string {
  const plain = `${parentRunId}--${toolCallId}`;
  if (isRunId(plain)) return plain;
  return `${parentRunId.slice(0, 100)}--${fnv1a(`${parentRunId}\0${toolCallId}`)}`;
}

/** FNV-1a, 32 bits, as 8 hex digits: a short stable digest with no Node module. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** The tool the model sees for a sub-agent: its name and description, and one `task`. */
function subAgentTool(spec: AgentSpec): ModelTool {
  return {
    type: 'function',
    function: {
      name: spec.name,
      description: spec.description,
      parameters: {
        type: 'object',
        properties: { task: { type: 'string', description: `What ${spec.name} should do, in words.` } },
        required: ['task'],
        additionalProperties: false,
      },
    },
  };
}

export interface SubAgentRun {
  runId: string;
  agent: AgentSpec;
  requester?: string;
  /** Set when this run is itself a sub-agent's. */
  chain?: SubAgentChain;
  log: RunLog;
  /** How many times the run has continued as new: its reports count on from the last execution's. */
  continued: number;
  /** While the run is paused, a promise of its resume (see RunContext). */
  paused(): Promise<void> | undefined;
}

/**
 * The sub-agents of a run: calls them as child workflows, passes the run's pause, resume and cancel
 * on to them, and keeps the approvals they wait on, which the run's own view shows. A run that is a
 * sub-agent's tells the run that called it what it waits on. A run with no sub-agents and no caller
 * does nothing here: its commands are those of a run before sub-agents were.
 */
export class SubAgents {
  private readonly catalog: Map<string, AgentSpec>;
  private readonly running = new Map<string, ChildWorkflowHandle<typeof agentWorkflow>>();
  /** Children started (or being started) and not yet ended: only their reports are taken. */
  private readonly open = new Set<string>();
  private readonly reported = new Map<string, SubAgentPending>();
  /** The pause in force, for a child started while the run is being paused. */
  private pausedBy: RunControl | undefined;
  private sent = '[]';
  private seq = 0;

  constructor(
    private readonly run: SubAgentRun,
    /** Called when a sub-agent's pending approvals change, to settle the run's status and publish it. */
    private readonly onChange: () => void,
  ) {
    this.catalog = new Map((run.agent.subAgents ?? []).map((spec) => [spec.name, spec]));
  }

  /** Whether a call of this name is a sub-agent's. */
  has(name: string): boolean {
    return this.run.agent.agents?.includes(name) ?? false;
  }

  /** The tools the model is offered for the run's sub-agents. */
  tools(): ModelTool[] {
    return (this.run.agent.agents ?? []).flatMap((name) => {
      const spec = this.catalog.get(name);
      return spec ? [subAgentTool(spec)] : [];
    });
  }

  /** Takes the reports of the run's children; a run with no sub-agents sets no handler. */
  listen(): void {
    if (!this.run.agent.agents?.length) return;
    setHandler(subAgentPendingSignal, (report) => {
      // Any Temporal client can send it: only a well-formed report of a child still open counts.
      if (!isReport(report) || !this.open.has(report.runId)) return;
      const last = this.reported.get(report.runId);
      if (last && last.seq >= report.seq) return;
      this.reported.set(report.runId, report);
      this.logChanges(report.runId, last?.pending ?? [], report.pending);
      this.onChange();
    });
  }

  /** The approvals the run's sub-agents (and theirs) wait on, each with its chain. */
  pending(): ApprovalView[] {
    return [...this.reported.values()].flatMap((report) => report.pending);
  }

  /** The run's own approvals as people see them: with the chain, in a sub-agent's run. */
  tag<T extends ApprovalView | null>(views: T[]): T[] {
    const { chain } = this.run;
    if (!chain) return views;
    return views.map((view) => (view ? { ...view, chain } : view));
  }

  /**
   * A sub-agent's run tells the run that called it what it now waits on (its own approvals, given
   * tagged, and its sub-agents'), when that changed.
   */
  report(own: ApprovalView[]): void {
    const { chain } = this.run;
    if (!chain) return;
    const pending = [...own, ...this.pending()];
    const key = JSON.stringify(pending);
    if (key === this.sent) return;
    this.sent = key;
    // Later than every report of the executions before (a run sends far fewer than a million).
    const seq = this.run.continued * 1_000_000 + ++this.seq;
    const report: SubAgentPending = { runId: this.run.runId, seq, pending };
    // The caller may have ended meanwhile: then nobody is left to tell.
    getExternalWorkflowHandle(chain.parentRunId)
      .signal(subAgentPendingSignal, report)
      .catch(() => undefined);
  }

  /** Passes a pause, resume or cancel the run took on to its running sub-agents. */
  relay(kind: 'pause' | 'resume' | 'cancel', request: RunControl): void {
    if (kind === 'pause') this.pausedBy = request;
    if (kind === 'resume') this.pausedBy = undefined;
    // A correction on resume is for this run's model; the sub-agents are only let go on.
    const passed = kind === 'resume' ? { actor: request.actor, channel: request.channel } : request;
    const signal = kind === 'pause' ? pauseSignal : kind === 'resume' ? resumeSignal : cancelSignal;
    for (const child of this.running.values()) child.signal(signal, passed).catch(() => undefined);
  }

  /**
   * Runs the sub-agent `name` on `task` as a child workflow and answers with its output, as the
   * call's tool message. Cancelling this run cancels the child (and it records by whom); a run that
   * ends any other way asks its children to cancel.
   */
  async call(name: string, toolCallId: string, task: string): Promise<string> {
    const spec = this.catalog.get(name);
    const above = this.run.chain?.agents ?? [this.run.agent.name];
    if (!spec) return this.refuse(name, toolCallId, 'sub_agent_failed', `no spec for ${name} in the run`);
    if (above.includes(name))
      return this.refuse(
        name,
        toolCallId,
        'sub_agent_cycle',
        `${name} is already in the chain ${above.join(' → ')}`,
      );
    if (above.length > MAX_SUB_AGENT_DEPTH)
      return this.refuse(
        name,
        toolCallId,
        'sub_agent_too_deep',
        `sub-agents nest at most ${MAX_SUB_AGENT_DEPTH} deep`,
      );
    // A paused run starts no sub-agent, as it starts no tool.
    const paused = this.run.paused();
    if (paused) await paused;
    const runId = childRunId(this.run.runId, toolCallId);
    const input: RunInput = {
      agent: { ...spec, subAgents: [...this.catalog.values()] },
      input: task,
      ...(this.run.requester !== undefined ? { requester: this.run.requester } : {}),
      chain: {
        rootRunId: this.run.chain?.rootRunId ?? this.run.runId,
        rootCallId: this.run.chain?.rootCallId ?? toolCallId,
        parentRunId: this.run.runId,
        agents: [...above, name],
      },
    };
    this.open.add(runId);
    let output: RunOutput;
    try {
      const child = await startChild<typeof agentWorkflow>('agentWorkflow', {
        workflowId: runId,
        args: [input],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        // Listed, and readable by the same people as any run of its agent, from its first moment.
        typedSearchAttributes: [
          { key: searchAttributeKeys.agent, value: spec.name },
          { key: searchAttributeKeys.status, value: 'running' },
          { key: searchAttributeKeys.pending, value: 0 },
          ...(this.run.requester !== undefined
            ? [{ key: searchAttributeKeys.requester, value: this.run.requester }]
            : []),
        ],
      });
      this.running.set(runId, child);
      if (this.pausedBy) child.signal(pauseSignal, this.pausedBy).catch(() => undefined);
      output = await child.result();
    } catch (err) {
      if (isCancellation(err)) throw err;
      const why = err instanceof ChildWorkflowFailure ? (err.cause?.message ?? err.message) : String(err);
      return this.refuse(name, toolCallId, 'sub_agent_failed', why, runId);
    } finally {
      this.running.delete(runId);
      this.open.delete(runId);
      const left = this.reported.get(runId);
      if (left && this.reported.delete(runId)) {
        this.logChanges(runId, left.pending, []);
        this.onChange();
      }
    }
    const ok = output.status === 'completed';
    this.run.log.add({
      type: 'tool.ran',
      tool: name,
      data: { toolCallId, ok, runId, status: output.status },
    });
    if (ok) return output.output ?? '';
    return failedMessage(
      name,
      `[sub_agent_failed] its run ${runId} ended ${output.status}${output.reason ? `: ${output.reason}` : ''}`,
    );
  }

  /**
   * The run's own log tells of its sub-agents' approvals as they come and go, so its event stream
   * shows them; what was decided, and by whom, is in the log of the run that asked.
   */
  private logChanges(childRunId: string, before: ApprovalView[], after: ApprovalView[]): void {
    const ids = (views: ApprovalView[]) => new Set(views.map((view) => view.trackingId));
    const [was, is] = [ids(before), ids(after)];
    const entry = (view: ApprovalView) => ({
      trackingId: view.trackingId,
      tool: view.tool,
      data: { runId: view.runId, kind: view.kind, chain: view.chain?.agents ?? [], via: childRunId },
    });
    for (const view of after)
      if (!was.has(view.trackingId)) this.run.log.add({ type: 'approval.requested', ...entry(view) });
    for (const view of before)
      if (!is.has(view.trackingId))
        this.run.log.add({
          type: 'approval.settled',
          ...entry(view),
          reason: `settled in the sub-agent run ${view.runId}`,
        });
  }

  private refuse(
    name: string,
    toolCallId: string,
    code: SubAgentFailureCode,
    why: string,
    runId?: string,
  ): string {
    this.run.log.add({
      type: 'tool.ran',
      tool: name,
      data: { toolCallId, ok: false, code, error: why, ...(runId ? { runId } : {}) },
    });
    return failedMessage(name, `[${code}] ${why}`);
  }
}

function isReport(value: unknown): value is SubAgentPending {
  if (typeof value !== 'object' || value === null) return false;
  const { runId, seq, pending } = value as Record<string, unknown>;
  return typeof runId === 'string' && typeof seq === 'number' && Array.isArray(pending);
}
