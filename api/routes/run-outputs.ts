import type { Request, Response } from 'express';
import { storedOutputIn } from '../../activities/content-store.js';
import type { TranscriptMessage } from '../../protocol/index.js';
import { accessRule } from '../access.js';
import { approverOf } from '../auth.js';
import type { ApiOptions } from '../context.js';
import { HttpError, parse } from '../errors.js';
import { readState } from '../run-reads.js';
import { OutputRef } from '../schemas.js';

/** Whether a tool message of the transcript stands for the output stored under `ref`. */
function names(transcript: readonly TranscriptMessage[], ref: string): boolean {
  // Tool messages only, as the model call reads them back: a user's or the model's own words that
  // look like a marker name nothing.
  return transcript.some((m) => m.role === 'tool' && storedOutputIn(m.content)?.ref === ref);
}

/**
 * `GET /api/runs/:runId/outputs/:ref`: the text of a tool output the workers kept in the content
 * store, as text/plain. Whoever may read the run may read it, and only under a reference the run's
 * own transcript holds: a store serves every run, so a reader of one run must not reach another's
 * outputs by naming its reference.
 */
export function runOutputRoute(options: ApiOptions) {
  const access = accessRule(options);
  return async (req: Request, res: Response) => {
    const runId = String(req.params.runId);
    const ref = parse(OutputRef, req.params.ref, 'output reference');
    const store = options.contentStore;
    if (!store) {
      throw new HttpError(
        404,
        'this API has no content store, so it cannot read stored tool outputs: give countersignRouter the contentStore the workers use',
        { code: 'no_content_store' },
      );
    }
    await access.readable(options.client, approverOf(res), runId);
    const { transcript } = await readState(options.client, runId);
    if (!names(transcript, ref))
      throw new HttpError(404, `run ${runId} has no stored output ${ref}`, { code: 'not_found' });
    let text: string;
    try {
      text = await store.get(ref);
    } catch (err) {
      // The store's own message may name its location or credentials: it goes to the log only.
      console.error(`countersign api: the content store could not return ${ref}:`, err);
      throw new HttpError(502, `the content store could not return ${ref}; the API's log says why`, {
        code: 'content_store_failed',
      });
    }
    res.type('text/plain; charset=utf-8').send(text);
  };
}
