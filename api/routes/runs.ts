import { WorkflowNotFoundError } from '@temporalio/client';
import { Router, type Request, type Response } from 'express';
import { cancelRun, pauseRun, resumeRun, startRun } from '../../client/index.js';
import { Channel, StartRunRequest } from '../../protocol/index.js';
import { searchAttributeKeys } from '../../workflows/search-attributes.js';
import { accessRule } from '../access.js';
import { approverOf } from '../auth.js';
import type { ApiOptions } from '../context.js';
import { HttpError, parse } from '../errors.js';
import {
  AUDIT_EVENTS,
  RunControlBody,
  RunListQuery,
  type CancelAccepted,
  type RunControlAccepted,
  type RunDetail,
  type RunList,
} from '../schemas.js';
import { runEventStream } from '../live/sse.js';
import { runStatusClause } from '../runs/run-status.js';
import { listPage, listQuery } from '../runs/run-lists.js';
import { readState } from '../runs/run-reads.js';
import { runWithoutWorker } from '../runs/run-without-worker.js';
import { memoUnreadable } from '../runs/memo-less-describe.js';
import { isWorkerNotAnswering } from '../runs/worker-wait.js';
import { runOutputRoute } from './run-outputs.js';

export function runsRouter(options: ApiOptions): Router {
  const { client } = options;
  const access = accessRule(options);
  const router = Router();

  router.post('/', async (req, res) => {
    const body = parse(StartRunRequest, req.body);
    const agent = options.agents.find((a) => a.name === body.agent);
    // A well-formed name this API runs no agent under: no schema can say which names it runs.
    if (!agent) {
      throw new HttpError(422, `no agent ${body.agent}`, {
        code: 'unknown_agent',
        fields: [
          {
            path: '/agent',
            message: `unknown agent; known: ${options.agents.map((a) => a.name).join(', ')}`,
          },
        ],
      });
    }
    const caller = approverOf(res);
    // The requester decides who may not approve their own run: only an admin may name someone else.
    if (body.requester && body.requester !== caller.id && !caller.roles.includes('admin')) {
      throw new HttpError(403, 'only an admin may start a run on behalf of someone else', {
        code: 'role_not_allowed',
      });
    }
    const { runId } = await startRun(client, {
      agent,
      input: body.input,
      requester: body.requester ?? caller.id,
      taskQueue: options.taskQueue,
      defaultModel: options.defaultModel,
    });
    res.status(201).location(`/api/runs/${runId}`).json({ runId });
  });

  router.get('/', async (req, res) => {
    const query = parse(RunListQuery, req.query, 'query');
    // Only the runs the caller may read: the rule is part of the list query, so pages stay exact.
    const clauses = [
      listQuery({ CountersignAgent: query.agent }),
      access.listClause(approverOf(res)),
      query.status ? runStatusClause(query.status) : undefined,
    ];
    const page = await listPage(
      client,
      options.namespace,
      clauses.filter((clause) => clause !== undefined).join(' AND '),
      query.limit,
      query.pageToken,
      options.signingSecret,
    );
    const next = page.nextPageToken ? { nextPageToken: page.nextPageToken } : {};
    res.json({ runs: page.runs.map((run) => run.summary), ...next } satisfies RunList);
  });

  router.get('/:runId', async (req, res) => {
    const description = await access.readable(client, approverOf(res), req.params.runId);
    const detail: RunDetail = await readState(
      client,
      req.params.runId,
      options.workerWaitMs,
      description,
    ).then(
      (state) => ({ ...state, audit: state.events.filter((e) => AUDIT_EVENTS.has(e.type)) }),
      // No worker answers for it (gone, or stuck): say what Temporal holds, within the bound.
      (err: unknown) => {
        if (isWorkerNotAnswering(err)) return runWithoutWorker(client, options.namespace, description);
        // Its payloads are encrypted under a key this API does not hold: what Temporal shows of it.
        if (memoUnreadable(description))
          return runWithoutWorker(client, options.namespace, description, {
            unreadable: { reason: 'payload_undecodable' },
          });
        throw err;
      },
    );
    res.json(detail);
  });

  // Whoever may read a run may cancel it; the run records who did, and through which channel.
  router.post('/:runId/cancel', async (req, res) => {
    const { runId } = req.params;
    const caller = approverOf(res);
    const channel = channelOf(req);
    const description = await access.readable(client, caller, runId);
    const closed = () => new HttpError(409, `run ${runId} has already ended`, { code: 'run_closed' });
    if (description.status.name !== 'RUNNING') throw closed();
    try {
      await cancelRun(client, runId, { actor: caller.id, channel });
    } catch (err) {
      // It ended between the look and the cancellation.
      if (err instanceof WorkflowNotFoundError) throw closed();
      throw err;
    }
    res.status(202).json({ runId, status: 'cancelling' } satisfies CancelAccepted);
  });

  // The same people may pause and resume it. The run takes the signal at its next step boundary.
  const control = (action: 'pause' | 'resume') => async (req: Request, res: Response) => {
    const runId = String(req.params.runId);
    const caller = approverOf(res);
    const channel = channelOf(req);
    const body = parse(RunControlBody, req.body ?? {});
    const description = await access.readable(client, caller, runId);
    const closed = () => new HttpError(409, `run ${runId} has already ended`, { code: 'run_closed' });
    if (description.status.name !== 'RUNNING') throw closed();
    // The run's own status, from its mutable state (not a list): exact once it took the last signal.
    const paused = description.typedSearchAttributes.get(searchAttributeKeys.status) === 'paused';
    if (action === 'pause' && paused)
      throw new HttpError(409, `run ${runId} is already paused`, { code: 'already_paused' });
    if (action === 'resume' && !paused)
      throw new HttpError(409, `run ${runId} is not paused`, { code: 'not_paused' });
    const request = { actor: caller.id, channel, ...body };
    await (action === 'pause' ? pauseRun : resumeRun)(client, runId, request).catch((err: unknown) => {
      // It ended between the look and the signal.
      throw err instanceof WorkflowNotFoundError ? closed() : err;
    });
    res.status(202).json({
      runId: runId,
      status: action === 'pause' ? 'pausing' : 'resuming',
    } satisfies RunControlAccepted);
  };
  router.post('/:runId/pause', control('pause'));
  router.post('/:runId/resume', control('resume'));

  router.get('/:runId/events', runEventStream(options));
  router.get('/:runId/outputs/:ref', runOutputRoute(options));

  return router;
}

/** Email links, Slack and chats only decide, through their own routes; the inbox and the CLI say which they are. */
function channelOf(req: Request): Exclude<Channel, 'email' | 'slack' | 'chat'> {
  return parse(
    Channel.exclude(['email', 'slack', 'chat']),
    req.get('x-countersign-channel') ?? 'api',
    'X-Countersign-Channel header',
  );
}
