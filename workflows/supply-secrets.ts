import type { JsonObject, Requirement, SecretSpec, ToolSpec } from '../protocol/index.js';
import { callDeciders } from './call-deciders.js';
import { awaitHumanDecision } from './approval-gate.js';
import { policyOf } from './evaluate-policy.js';
import type { RunContext } from './run-context.js';
import type { HeldSecret } from './secret-vault.js';

/** The secrets a call needs, sealed, or why it has none: nobody supplied one by its deadline. */
export type SuppliedSecrets = { ok: true; secrets: HeldSecret[] } | { ok: false; error: string };

/**
 * Gathers the secrets a tool declares for one call: those the run holds, and the rest asked of a
 * person among those who decide the call (`callDeciders`).
 */
export async function secretsForCall(
  ctx: RunContext,
  tool: ToolSpec,
  toolCallId: string,
  args: JsonObject,
  trackingId: string | undefined,
): Promise<SuppliedSecrets> {
  const secrets: HeldSecret[] = [];
  for (const spec of tool.secrets ?? []) {
    const held =
      ctx.vault.get(spec.name) ?? (await askForSecret(ctx, spec, tool, toolCallId, args, trackingId));
    if (typeof held === 'string') {
      // The call goes without: what was supplied for it alone goes with it.
      ctx.vault.used(secrets);
      return { ok: false, error: held };
    }
    secrets.push(held);
  }
  return { ok: true, secrets };
}

/**
 * Asks a person for one secret; the answer reaches the run sealed by the API. Returns it held by
 * the run, or why the call goes without.
 */
export async function askForSecret(
  ctx: RunContext,
  spec: SecretSpec,
  tool: ToolSpec,
  toolCallId: string,
  args: JsonObject | undefined,
  trackingId: string | undefined,
  question?: string,
): Promise<HeldSecret | string> {
  const policy = policyOf(tool);
  // Any one of those who decide the call (asked for its question, the policy's approvers) supplies it.
  const deciders = args
    ? callDeciders(ctx, tool, toolCallId, args, trackingId).requirements
    : [{ roles: policy.approvers }];
  const requirements: Requirement[] = deciders.map(({ roles }) => ({
    roles,
    count: 1,
    reason: `${tool.name} needs ${spec.label}`,
  }));
  const view = await awaitHumanDecision(ctx.book, {
    kind: 'secret',
    tool: tool.name,
    toolCallId,
    // What the secret unlocks: the call it is for (none when the model asked for it by name).
    args: args ?? {},
    secret: { name: spec.name, label: spec.label },
    ...(question ? { question } : {}),
    description: question ?? `${tool.name} needs ${spec.label}`,
    schema: { type: 'string', minLength: 1 },
    allowedDecisions: ['respond', 'reject'],
    requirements,
    allowSelfApproval: true,
    deadlineSeconds: policy.deadlineSeconds,
    // Nobody supplying it means the call goes without, never that it runs without it.
    onTimeout: { action: 'reject' },
  });
  const by = view.outcome?.by ?? [];
  const sealed = ctx.book.takeSealed(view.trackingId);
  if (view.status === 'responded' && sealed) {
    const held: HeldSecret = { name: spec.name, sealed, trackingId: view.trackingId, keep: spec.keep, by };
    ctx.vault.put(held);
    return held;
  }
  if (view.status === 'rejected') {
    const why = view.outcome?.message ? `: ${view.outcome.message}` : '';
    return `${by.join(', ') || 'a person'} declined to supply ${spec.label}${why}`;
  }
  return `nobody supplied ${spec.label} before the deadline`;
}
