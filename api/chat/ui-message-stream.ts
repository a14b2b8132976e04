/**
 * The AI SDK's UI message stream (protocol v1, as `useChat`'s default transport reads it): chat
 * parts as its chunks, framed as server-sent events (`data: <chunk JSON>`, ended by `data: [DONE]`).
 * Countersign's own parts are data parts, which `useChat` keeps in the message:
 * `data-countersign-approval` (by tracking id: asked of you, waiting for others, or decided),
 * `data-countersign-refused` (by approval id) and `data-countersign-run` (the run and its status).
 */
import type { Request, Response } from 'express';
import type { RunStatus } from '../../protocol/index.js';
import type { UiMessageChunk } from './chat-stream-schemas.js';
import type { ChatPart } from './run-parts.js';

/** The response headers of a UI message stream; the last tells proxies not to buffer it. */
export const UI_MESSAGE_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'X-Accel-Buffering': 'no',
};

const FINISH_REASON: Record<RunStatus, Extract<UiMessageChunk, { type: 'finish' }>['finishReason']> = {
  completed: 'stop',
  failed: 'error',
  cancelled: 'other',
  running: 'other',
  waiting: 'tool-calls',
  paused: 'other',
};

export function uiChunks(part: ChatPart): UiMessageChunk[] {
  switch (part.type) {
    case 'step':
      // Each model response is a step; the one before it ends where it begins.
      return part.step > 1 ? [{ type: 'finish-step' }, { type: 'start-step' }] : [{ type: 'start-step' }];
    case 'text': {
      const id = `text-${part.step}`;
      return [
        { type: 'text-start', id },
        { type: 'text-delta', id, delta: part.text },
        { type: 'text-end', id },
      ];
    }
    case 'tool-call':
      return [
        { type: 'tool-input-available', toolCallId: part.toolCallId, toolName: part.tool, input: part.input },
      ];
    case 'approval-requested':
      return [
        {
          type: 'tool-approval-request',
          approvalId: part.approval.approvalId,
          toolCallId: part.approval.toolCallId,
        },
        {
          type: 'data-countersign-approval',
          id: part.approval.trackingId,
          data: { state: 'requested', ...part.approval },
        },
      ];
    case 'approval-waiting':
      return [
        {
          type: 'data-countersign-approval',
          id: part.approval.trackingId,
          data: { state: 'waiting', ...part.approval },
        },
      ];
    case 'approval-decided':
      return [
        {
          type: 'data-countersign-approval',
          id: part.decided.trackingId,
          data: { state: 'decided', ...part.decided },
        },
      ];
    case 'tool-output':
      return [{ type: 'tool-output-available', toolCallId: part.toolCallId, output: part.output }];
    case 'tool-denied':
      return [{ type: 'tool-output-denied', toolCallId: part.toolCallId }];
    case 'tool-error':
      return [{ type: 'tool-output-error', toolCallId: part.toolCallId, errorText: part.error }];
    case 'refused':
      return [{ type: 'data-countersign-refused', id: part.refused.approvalId, data: part.refused }];
    case 'run':
      return [
        {
          type: 'data-countersign-run',
          id: part.runId,
          data: { runId: part.runId, status: part.status, ...(part.reason ? { reason: part.reason } : {}) },
        },
      ];
    case 'error':
      return [{ type: 'error', errorText: part.message }];
    case 'finish':
      return [
        { type: 'finish-step' },
        { type: 'finish', finishReason: part.waitsOnReader ? 'tool-calls' : FINISH_REASON[part.status] },
      ];
  }
}

/** How often a quiet stream (a run waiting for someone) sends a comment, so proxies keep it open. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Writes the parts as a UI message stream until they end or the client goes away. `messageId`
 * names the assistant message of a new response (the turn's run id, so a replay replaces it); a
 * response that continues the client's last message names none.
 */
export async function writeUiMessageStream(
  req: Request,
  res: Response,
  parts: (signal: AbortSignal) => AsyncIterable<ChatPart>,
  messageId: string | undefined,
): Promise<void> {
  const controller = new AbortController();
  res.once('close', () => controller.abort());
  res.status(200).set(UI_MESSAGE_STREAM_HEADERS);
  res.flushHeaders();
  const write = (chunk: UiMessageChunk) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  try {
    write({ type: 'start', ...(messageId ? { messageId } : {}) });
    for await (const part of parts(controller.signal)) for (const chunk of uiChunks(part)) write(chunk);
  } catch (err) {
    if (!controller.signal.aborted) {
      console.error(`countersign chat: the stream of ${req.originalUrl} failed:`, err);
      write({ type: 'error', errorText: 'the run could not be read; reload to resume' });
    }
  } finally {
    clearInterval(keepAlive);
    if (!controller.signal.aborted) res.end('data: [DONE]\n\n');
  }
}
