import type { Request, Response } from 'express';
import type { RunState } from '../../protocol/index.js';
import { ContentStoreMismatch, readStoredOutput } from '../../content-store/read-stored-output.js';
import { storedOutputOf, type StoredOutput } from '../../protocol/stored-output.js';
import { accessRule } from '../access.js';
import { approverOf } from '../auth.js';
import type { ApiOptions } from '../context.js';
import { HttpError, parse } from '../errors.js';
import { readState } from '../runs/run-reads.js';
import { OutputRef } from '../schemas.js';

/** The marker of the run that stands for the output its worker stored under `ref`, as the model read it. */
function markerOf({ transcript, storedOutputs }: RunState, ref: string): StoredOutput | undefined {
  for (const message of transcript) {
    const marker = storedOutputOf(message, storedOutputs);
    if (marker?.ref === ref) return marker;
  }
  return undefined;
}

/**
 * `GET /api/runs/:runId/outputs/:ref`: the text of a tool output the workers kept in the content
 * store, as text/plain. Whoever may read the run may read it, and only under a reference the run's
 * own worker wrote: a store serves every run, so a reader of one run must not reach another's
 * outputs by naming its reference, nor by getting it written into this run (a tool's output, a
 * person's answer).
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
    const marker = markerOf(await readState(options.client, runId), ref);
    if (!marker) throw new HttpError(404, `run ${runId} has no stored output ${ref}`, { code: 'not_found' });
    let text: string;
    try {
      text = await readStoredOutput(store, marker);
    } catch (err) {
      if (err instanceof ContentStoreMismatch) {
        // The deployment's fault, not the caller's: a 5xx, as a store that fails is.
        console.error(`countersign api: ${err.explain('API', store.location)}`);
        throw new HttpError(502, err.explain('API'), { code: 'content_store_mismatch' });
      }
      // The store's own message may name its location or credentials: it goes to the log only.
      console.error(`countersign api: the content store could not return ${ref}:`, err);
      throw new HttpError(502, `the content store could not return ${ref}; the API's log says why`, {
        code: 'content_store_failed',
      });
    }
    res.type('text/plain; charset=utf-8').send(text);
  };
}
