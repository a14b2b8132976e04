import type { Client } from '@temporalio/client';
import {
  parseTrackingId,
  SecretText,
  type Approver,
  type Channel,
  type DecisionOutcome,
} from '../protocol/index.js';
import type { SecretSealer } from '../secrets/sealer.js';
import { approvalQuery } from '../workflows/definitions.js';
import { sendDecision, UnknownApprovalError } from './decide.js';
import { queryRun } from './query-run.js';

/**
 * What {@link supplySecret} sends: the secret as the person typed it, who they are, and the
 * request id that makes a retry safe.
 *
 * @example
 * ```ts
 * import type { SecretSupply } from 'countersign/client';
 *
 * const supply: SecretSupply = {
 *   trackingId: approval.trackingId,
 *   secret: passwordFromYourForm,
 *   approver: { id: 'lee', roles: ['dba'] },
 *   requestId: crypto.randomUUID(),
 * };
 * ```
 */
export interface SecretSupply {
  trackingId: string;
  secret: string;
  approver: Approver;
  channel?: Channel;
  requestId: string;
  /** The revision the person was shown; the approval's current one when absent. */
  revision?: number;
}

/**
 * Supplies a secret to an approval of kind `secret` from your own service, as the Countersign API
 * does: sealed with the secret keys for that approval and name, then sent as its decision, so the
 * value never enters the run. Check who the person is first, as for any decision; the workflow
 * checks their roles again.
 *
 * @example
 * ```ts
 * import { loadSecretKeys, secretSealer } from 'countersign';
 * import { supplySecret } from 'countersign/client';
 *
 * const sealer = secretSealer(loadSecretKeys(process.env)!);
 * const outcome = await supplySecret(client, sealer, {
 *   trackingId,
 *   secret: passwordFromYourForm,
 *   approver: { id: 'lee', roles: ['dba'] },
 *   requestId: crypto.randomUUID(),
 * });
 * ```
 */
export async function supplySecret(
  client: Client,
  sealer: SecretSealer,
  supply: SecretSupply,
  options?: { waitMs?: number },
): Promise<DecisionOutcome | null> {
  const { trackingId } = supply;
  const parsed = parseTrackingId(trackingId);
  if (!parsed) throw new UnknownApprovalError(trackingId);
  if (!SecretText.safeParse(supply.secret).success) throw new TypeError('a secret is 1 to 8,192 characters');
  const approval = await queryRun(client.workflow.getHandle(parsed.runId), approvalQuery, trackingId);
  if (!approval) throw new UnknownApprovalError(trackingId);
  if (approval.kind !== 'secret' || !approval.secret)
    throw new TypeError(`approval ${trackingId} asks for no secret (it is of kind ${approval.kind})`);
  const sealed = sealer.seal(supply.secret, { trackingId, name: approval.secret.name });
  return sendDecision(
    client,
    {
      trackingId,
      decision: { type: 'respond', sealed },
      approver: supply.approver,
      channel: supply.channel ?? 'api',
      requestId: supply.requestId,
      revision: supply.revision ?? approval.revision,
    },
    options,
  );
}
