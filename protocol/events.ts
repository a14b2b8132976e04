import { z } from 'zod';
import { JsonValue } from './json.js';
import { ArgChange } from './approval.js';
import { Channel, RefusalCode } from './decision.js';
import { DecisionType } from './policy.js';
import { ApprovalStatus } from './status.js';

/**
 * The kinds of entry in a run's log, from `run.started` to `run.finished`.
 *
 * @example
 * ```ts
 * import { getRunEvents } from 'countersign/client';
 * import { type RunEventType } from 'countersign';
 *
 * const decisions: RunEventType[] = ['approval.decided', 'decision.refused'];
 * const audit = (await getRunEvents(client, runId, 0)).filter((event) => decisions.includes(event.type));
 * ```
 */
export const RunEventType = z.enum([
  'run.started',
  'model.responded',
  'approval.requested',
  'approval.decided',
  'decision.refused',
  'approval.escalated',
  'approval.settled',
  'tool.ran',
  'tool.unknown',
  'tool.denied',
  'standing.granted',
  'standing.used',
  'standing.revoked',
  'run.paused',
  'run.resumed',
  'run.continued',
  'run.cancelled',
  'run.finished',
]);
export type RunEventType = z.infer<typeof RunEventType>;

/**
 * One entry of a run's log. The audit trail is this log's approval entries; live events (SSE)
 * are this log too, so `id` (a per-run sequence) doubles as the SSE event id.
 *
 * @example
 * ```ts
 * import { getRunEvents } from 'countersign/client';
 *
 * for (const event of await getRunEvents(client, runId, 0))
 *   if (event.type === 'approval.decided') console.log(event.actor, event.decision, event.channel);
 * ```
 */
export const RunEvent = z.strictObject({
  id: z.number().int().min(1),
  runId: z.string(),
  type: RunEventType,
  at: z.string(),
  trackingId: z.string().optional(),
  tool: z.string().optional(),
  actor: z.string().optional(),
  channel: Channel.optional(),
  decision: DecisionType.optional(),
  status: ApprovalStatus.optional(),
  code: RefusalCode.optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  diff: z.array(ArgChange).optional(),
  data: JsonValue.optional(),
});
export type RunEvent = z.infer<typeof RunEvent>;
