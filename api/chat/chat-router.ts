import express, { Router } from 'express';
import { approverOf, requireApprover, tokenAuthentication } from '../auth.js';
import { accessOfDescription, accessRule } from '../access.js';
import { resolveApiOptions, type CountersignApiOptions } from '../context.js';
import { refuseCrossSite } from '../cross-site.js';
import { documentedMethods } from '../documented-methods.js';
import { errorHandler, HttpError, notFound, parse } from '../errors.js';
import { limitJsonDepth } from '../json-depth.js';
import { limitEventStreams } from '../live/stream-slots.js';
import { requireJsonBody } from '../require-json.js';
import { agUiRoute } from './ag-ui-route.js';
import { applyResponses } from './chat-decisions.js';
import { chatOpenApiDocument } from './chat-openapi.js';
import { ChatId, ChatRequest, approvalResponses, stepsShown, turnOf } from './chat-request.js';
import { latestTurn } from './chat-runs.js';
import { followRun } from './follow-run.js';
import { openTurn } from './open-turn.js';
import { writeUiMessageStream } from './ui-message-stream.js';

/**
 * What `countersignChat` needs: the router's own options (the same object will do), and the agent
 * the chat talks to.
 *
 * @example
 * ```ts
 * import type { CountersignChatOptions } from 'countersign/api';
 *
 * const chat: CountersignChatOptions = { ...apiOptions, agent: 'support' };
 * ```
 */
export interface CountersignChatOptions extends CountersignApiOptions {
  /** The name of the agent each turn of a chat runs: one of `agents`. */
  agent: string;
}

/**
 * The endpoint a chat front end built with the AI SDK talks to, unchanged: `useChat` (or `Chat`)
 * with its default transport pointed at the mount. `POST /` takes the chat's messages and answers
 * with the UI message stream of the turn's run; `GET /:chatId/stream` resumes the chat's current
 * turn; `POST /ag-ui` serves the same chats to an AG-UI client (`HttpAgent`), the thread id naming
 * the chat. Each user message starts a run (`chat-<chatId>-<turn>`) of `agent`, requested by the
 * signed-in person; an approval answered in the chat is their decision, under the same rules as
 * every channel. Mount it beside `countersignRouter`, with the same `authenticate`.
 *
 * @example
 * ```ts
 * import { countersignChat } from 'countersign/api';
 *
 * app.use('/approvals/chat', countersignChat({ ...apiOptions, agent: 'support' }));
 * ```
 */
export function countersignChat(options: CountersignChatOptions): Router {
  const resolved = resolveApiOptions(options, tokenAuthentication);
  const agent = resolved.agents.find((a) => a.name === options.agent);
  if (!agent)
    throw new TypeError(
      `countersign: countersignChat's agent ${options.agent} is none of its agents (${resolved.agents.map((a) => a.name).join(', ')})`,
    );
  const access = accessRule(resolved);
  const router = Router();
  router.use((_req, res, next) => {
    res.set({ 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY' });
    next();
  });
  // Public, as the REST API's: its paths are relative to wherever the host mounted this router.
  const document = chatOpenApiDocument();
  router.use(documentedMethods(document));
  router.get('/openapi.json', (req, res) => {
    res.json({ ...document, servers: [{ url: req.baseUrl || '/' }] });
  });
  // As the REST API: another site's page may not post in a signed-in person's name.
  router.use(refuseCrossSite(resolved.publicUrl));
  // A chat sends its whole history with every message.
  router.use(express.json({ limit: '1mb', strict: true }));
  router.use(requireJsonBody);
  router.use(limitJsonDepth);
  router.use(requireApprover(resolved.authenticate));
  const streams = limitEventStreams(resolved.eventStreams);

  router.post('/', streams, async (req, res) => {
    const body = parse(ChatRequest, req.body);
    const caller = approverOf(res);
    const { turn, text } = turnOf(body);
    if (turn === 0)
      throw new HttpError(400, 'a chat request holds at least one user message', {
        code: 'invalid_request',
        fields: [{ path: '/messages', message: 'no user message' }],
      });
    const runId = await openTurn(resolved, agent, { chatId: body.id, turn, text, caller });
    const { refused, decided } = await applyResponses(resolved, caller, runId, approvalResponses(body));
    const first = refused.map((one) => ({ type: 'refused' as const, refused: one }));
    const steps = stepsShown(body);
    await writeUiMessageStream(
      req,
      res,
      (signal) => followRun(resolved, { runId, reader: caller, stepsShown: steps, first, decided }, signal),
      steps === 0 ? runId : undefined,
    );
  });

  // The AI SDK's stream resumption: the current turn from its start (a replay), then live.
  router.get('/:chatId/stream', streams, async (req, res) => {
    const chatId = parse(ChatId, req.params.chatId, 'chat id');
    const caller = approverOf(res);
    const latest = await latestTurn(resolved.client, chatId);
    // No run to resume, or none the caller may read (whose existence is not theirs to learn).
    if (!latest || !access.mayRead(caller, accessOfDescription(latest.description)))
      return void res.status(204).end();
    const runId = latest.description.workflowId;
    await writeUiMessageStream(
      req,
      res,
      (signal) => followRun(resolved, { runId, reader: caller, stepsShown: 0 }, signal),
      runId,
    );
  });

  // The same chats as an AG-UI agent (`HttpAgent` pointed at `<mount>/ag-ui`).
  router.post('/ag-ui', streams, agUiRoute(resolved, agent));

  router.use(notFound);
  router.use(errorHandler);
  return router;
}
