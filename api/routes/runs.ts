import { Router } from 'express';
import { cancelRun, startRun } from '../../client/index.js';
import { StartRunRequest } from '../../protocol/index.js';
import { approverOf } from '../auth.js';
import type { ApiOptions } from '../context.js';
import { HttpError, parse } from '../errors.js';
import { AUDIT_EVENTS, RunListQuery, type CancelAccepted, type RunDetail, type RunList } from '../schemas.js';
import { runEventStream } from '../sse.js';
import { runStatusClause } from '../run-status.js';
import { listPage, listQuery } from '../run-lists.js';
import { describeRun, readState } from '../run-reads.js';

export function runsRouter(options: ApiOptions): Router {
  const { client } = options;
  const router = Router();

  router.post('/', async (req, res) => {
    const body = parse(StartRunRequest, req.body);
    const agent = options.agents.find((a) => a.name === body.agent);
    if (!agent) {
      throw new HttpError(400, `no agent ${body.agent}`, {
        code: 'invalid_request',
        fields: [
          { path: 'agent', message: `unknown agent; known: ${options.agents.map((a) => a.name).join(', ')}` },
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
    const filter = listQuery({ CountersignAgent: query.agent });
    const page = await listPage(
      client,
      options.namespace,
      query.status ? `${filter} AND ${runStatusClause(query.status)}` : filter,
      query.limit,
      query.pageToken,
      options.signingSecret,
    );
    const next = page.nextPageToken ? { nextPageToken: page.nextPageToken } : {};
    res.json({ runs: page.runs.map((run) => run.summary), ...next } satisfies RunList);
  });

  router.get('/:runId', async (req, res) => {
    const state = await readState(client, req.params.runId);
    res.json({ ...state, audit: state.events.filter((e) => AUDIT_EVENTS.has(e.type)) } satisfies RunDetail);
  });

  router.post('/:runId/cancel', async (req, res) => {
    const { runId } = req.params;
    const description = await describeRun(client, runId);
    if (description.status.name !== 'RUNNING') {
      throw new HttpError(409, `run ${runId} has already ended`, { code: 'run_closed' });
    }
    await cancelRun(client, runId);
    res.status(202).json({ runId, status: 'cancelling' } satisfies CancelAccepted);
  });

  router.get('/:runId/events', runEventStream(options));

  return router;
}
