/**
 * AG-UI (protocol 1.0, as `@ag-ui/client`'s `HttpAgent` reads it): chat parts as AG-UI events,
 * framed as server-sent events (`data: <event JSON>`). One POST is one AG-UI run: RUN_STARTED, the
 * turn's text messages, tool calls (start, args, end) and their results, Countersign's view of the
 * run as state (STATE_SNAPSHOT), refused decisions as CUSTOM `countersign.refused` events, and
 * RUN_FINISHED: with an interrupt outcome while a call waits for the caller, else success or
 * cancelled. A failed run, or a request refused, ends in RUN_ERROR with a stable code.
 */
import type { Request, Response } from 'express';
import type { JsonObject } from '../../protocol/index.js';
import { HttpError } from '../errors.js';
import type { Held } from './ag-ui-request.js';
import type { AgUiEvent, AgUiInterrupt, AgUiState, ChatApproval } from './chat-stream-schemas.js';
import type { ChatPart } from './run-parts.js';

// countersign/api exports the AG-UI types from here, beside the events they type.
export type { AgUiEvent, AgUiInterrupt, AgUiState };

/** The AG-UI version spoken here: the first with interrupt outcomes and resume entries. */
export const AG_UI_PROTOCOL = '1.0';

/** How a call ended, on its TOOL_CALL_RESULT (and so on the client's tool message). */
type ResultOutcome = Extract<AgUiEvent, { type: 'TOOL_CALL_RESULT' }>['metadata']['countersign']['outcome'];

/**
 * Ids of the run's messages and calls in the thread. A thread holds every turn's messages, and a
 * model may give its calls the same ids turn after turn, so each is qualified by its run.
 */
const stepMessageId = (runId: string, step: number) => `${runId}/step-${step}`;
export const agUiCallId = (runId: string, toolCallId: string) => `${runId}/call-${toolCallId}`;

/** The interrupt of an approval asked of the caller. */
export function interruptOf(runId: string, approval: ChatApproval): AgUiInterrupt {
  const editable = approval.editableFields ? ` Only ${approval.editableFields.join(', ')} may change.` : '';
  const properties: JsonObject = {
    approved: {
      type: 'boolean',
      description: 'true approves the call (edited, with editedArgs); false rejects it',
    },
    reason: {
      type: 'string',
      maxLength: 4000,
      description: 'Why; the model reads the reason for a rejection',
    },
  };
  if (approval.allowedDecisions.includes('edit'))
    properties.editedArgs = {
      ...approval.schema,
      description: `The whole new arguments, not merged.${editable}`,
    } as JsonObject;
  return {
    id: approval.approvalId,
    reason: 'tool_call',
    message: `${approval.description.replace(/[.\s]+$/, '')}. Needs ${approval.needs.join('; ')}.`,
    toolCallId: agUiCallId(runId, approval.toolCallId),
    responseSchema: { type: 'object', properties, required: ['approved'], additionalProperties: false },
    expiresAt: approval.deadline,
    metadata: { countersign: approval },
  };
}

/**
 * Turns the parts of one run into the events of one AG-UI run. What the client already holds (its
 * messages, calls and results, from the request) is not sent again: a resumed run goes on from
 * where the client is.
 */
export async function* agUiEvents(
  parts: AsyncIterable<ChatPart>,
  run: { threadId: string; runId: string; countersignRunId: string; held: Held },
): AsyncGenerator<AgUiEvent> {
  const { threadId, runId, countersignRunId: csRunId, held } = run;
  const state: AgUiState = { countersign: { runId: csRunId, approvals: {}, refused: {} } };
  const snapshot = (): AgUiEvent => ({ type: 'STATE_SNAPSHOT', snapshot: structuredClone(state) });
  /** The approvals asked of the caller now, by tracking id. */
  const asked = new Map<string, ChatApproval>();
  /** Whether the client lacks it yet; from now on it holds it. */
  const once = (ids: Set<string>, id: string) => {
    if (ids.has(id)) return false;
    ids.add(id);
    return true;
  };
  const result = (toolCallId: string, outcome: ResultOutcome, content: string): AgUiEvent[] => {
    const id = agUiCallId(csRunId, toolCallId);
    if (!once(held.results, id)) return [];
    const metadata = { countersign: { outcome } };
    return [
      {
        type: 'TOOL_CALL_RESULT',
        messageId: `${id}/result`,
        toolCallId: id,
        role: 'tool',
        content,
        metadata,
      },
    ];
  };

  yield { type: 'RUN_STARTED', threadId, runId, protocolVersion: AG_UI_PROTOCOL };
  for await (const part of parts) {
    switch (part.type) {
      case 'step':
        break;
      case 'text': {
        const messageId = stepMessageId(csRunId, part.step);
        if (!once(held.messages, messageId)) break;
        yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
        yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: part.text };
        yield { type: 'TEXT_MESSAGE_END', messageId };
        break;
      }
      case 'tool-call': {
        // An edit changes the arguments the call shows: the edit is in the approval's state, and
        // AG-UI does not send a call twice.
        const toolCallId = agUiCallId(csRunId, part.toolCallId);
        if (!once(held.toolCalls, toolCallId)) break;
        const parentMessageId = stepMessageId(csRunId, part.step);
        yield { type: 'TOOL_CALL_START', toolCallId, toolCallName: part.tool, parentMessageId };
        yield { type: 'TOOL_CALL_ARGS', toolCallId, delta: JSON.stringify(part.input) };
        yield { type: 'TOOL_CALL_END', toolCallId };
        break;
      }
      case 'tool-output':
        yield* result(
          part.toolCallId,
          'output',
          typeof part.output === 'string' ? part.output : JSON.stringify(part.output),
        );
        break;
      case 'tool-denied':
        yield* result(part.toolCallId, 'denied', part.reason ?? 'not run: the call was refused');
        break;
      case 'tool-error':
        yield* result(part.toolCallId, 'error', part.error);
        break;
      case 'approval-requested':
      case 'approval-waiting': {
        const { trackingId } = part.approval;
        const requested = part.type === 'approval-requested';
        if (requested) asked.set(trackingId, part.approval);
        else asked.delete(trackingId);
        state.countersign.approvals[trackingId] = {
          state: requested ? 'requested' : 'waiting',
          ...part.approval,
        };
        yield snapshot();
        break;
      }
      case 'approval-decided':
        asked.delete(part.decided.trackingId);
        state.countersign.approvals[part.decided.trackingId] = { state: 'decided', ...part.decided };
        yield snapshot();
        break;
      case 'refused':
        state.countersign.refused[part.refused.approvalId] = part.refused;
        yield { type: 'CUSTOM', name: 'countersign.refused', value: part.refused };
        yield snapshot();
        break;
      case 'run':
        state.countersign.status = part.status;
        if (part.reason) state.countersign.reason = part.reason;
        yield snapshot();
        break;
      case 'error':
        yield { type: 'RUN_ERROR', message: part.message, code: 'run_failed' };
        return;
      case 'finish': {
        const interrupts = [...asked.values()].map((approval) => interruptOf(csRunId, approval));
        const outcome =
          part.waitsOnReader && interrupts.length > 0
            ? { type: 'interrupt' as const, interrupts }
            : { type: part.status === 'completed' ? ('success' as const) : ('cancelled' as const) };
        yield { type: 'RUN_FINISHED', threadId, runId, outcome };
        return;
      }
    }
  }
}

export const AG_UI_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** How often a quiet stream (a run waiting for someone) sends a comment, so proxies keep it open. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Writes the events until the run finishes, fails or the client goes away. A request the API refuses
 * (an HttpError, before or after RUN_STARTED: a turn out of order, an unknown interrupt, Temporal
 * unavailable) ends the AG-UI run in RUN_ERROR with its code, as AG-UI asks of an agent given input
 * it cannot take.
 */
export async function writeAgUiStream(
  req: Request,
  res: Response,
  events: (signal: AbortSignal) => AsyncIterable<AgUiEvent>,
): Promise<void> {
  const controller = new AbortController();
  res.once('close', () => controller.abort());
  res.status(200).set(AG_UI_STREAM_HEADERS);
  res.flushHeaders();
  let ended = false;
  const write = (event: AgUiEvent) => {
    ended = event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR';
    res.write(`data: ${JSON.stringify(event)}\n\n`);
  };
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  try {
    for await (const event of events(controller.signal)) {
      write(event);
      if (ended) break;
    }
  } catch (err) {
    if (!controller.signal.aborted && !ended) {
      if (err instanceof HttpError) {
        const fields = err.details.fields;
        write({
          type: 'RUN_ERROR',
          message: err.message,
          code: err.details.code,
          ...(fields ? { metadata: { countersign: { fields } } } : {}),
        });
      } else {
        console.error(`countersign chat: the AG-UI run of ${req.originalUrl} failed:`, err);
        write({
          type: 'RUN_ERROR',
          message: 'the run could not be read; run the agent again to resume',
          code: 'internal',
        });
      }
    }
  } finally {
    clearInterval(keepAlive);
    if (!controller.signal.aborted) res.end();
  }
}
