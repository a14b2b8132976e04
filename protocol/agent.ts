import { z } from 'zod';
import { JsonSchema } from './json.js';
import { ApprovalPolicy } from './policy.js';
import { Name } from './name.js';
import { SecretSpec } from './secret.js';

/**
 * The serializable face of a tool: what the model, the workflow, the API and the inbox see.
 *
 * @example
 * ```ts
 * import { ToolSpec } from 'countersign';
 *
 * const spec = ToolSpec.parse({
 *   name: 'lookup_order',
 *   description: 'Look an order up.',
 *   parameters: { type: 'object' },
 * });
 * spec.safe; // false: without a policy, every call waits for a human
 * ```
 */
export const ToolSpec = z.strictObject({
  name: Name,
  description: z.string(),
  /** JSON Schema of the arguments, derived from the tool's zod schema. */
  parameters: JsonSchema,
  /** JSON Schema of a human-supplied result (`respond`), when the tool declares one. */
  resultSchema: JsonSchema.optional(),
  /** Marked safe: never gated. A tool that is neither safe nor given a policy needs approval. */
  safe: z.boolean().default(false),
  /**
   * Whether another attempt of a call is safe: the tool dedupes on the idempotency key, or has no
   * lasting effect. When false, an attempt whose outcome is unknown goes to a person rather than
   * being repeated. Absent: true for a safe tool, false for any other.
   */
  idempotent: z.boolean().optional(),
  /** Attempts of a call that fails in a known way (the tool threw); 3 when absent. */
  maxAttempts: z.number().int().min(1).max(10).optional(),
  approval: ApprovalPolicy.optional(),
  /** Secrets a person supplies for each call (or once per run); never in `parameters`. */
  secrets: z.array(SecretSpec).max(10).optional(),
});
export type ToolSpec = z.output<typeof ToolSpec>;

/** An agent's spec without its catalog of sub-agents: what each entry of that catalog is. */
const AgentSpecFields = z.strictObject({
  name: Name,
  description: z.string().default(''),
  instructions: z.string(),
  model: z.string().min(1),
  /** Up to 10,000: a long run continues as new when its history grows (see docs/production.md). */
  maxTurns: z.number().int().min(1).max(10_000).default(20),
  /** Present all gated calls of one turn to a human as one plan. */
  planReview: z.boolean().default(false),
  /** Offer the built-in `ask_human` tool. */
  askHuman: z.boolean().default(false),
  tools: z.array(ToolSpec),
  /** The sub-agents it may call, by name: each is offered to the model as a tool taking a `task`. */
  agents: z.array(Name).max(20).optional(),
});

/**
 * The serializable face of an agent. A run takes a copy at start, so its policies never change under
 * it: `subAgents` holds, once each, every agent its sub-agents reach (each names its own in
 * `agents`), so a sub-agent's run starts from the copy its root took.
 *
 * @example
 * ```ts
 * import { AgentSpec } from 'countersign';
 *
 * const spec = AgentSpec.parse({
 *   name: 'support',
 *   instructions: 'Help customers.',
 *   model: 'gpt-4o-mini',
 *   tools: [],
 * });
 * spec.maxTurns; // 20
 * ```
 */
export const AgentSpec = AgentSpecFields.extend({
  subAgents: z.array(AgentSpecFields).optional(),
});
export type AgentSpec = z.output<typeof AgentSpec>;
/**
 * An `AgentSpec` as written, defaults left out.
 *
 * @example
 * ```ts
 * import { AgentSpec, type AgentSpecInput } from 'countersign';
 *
 * const input: AgentSpecInput = {
 *   name: 'triage',
 *   instructions: 'Sort tickets.',
 *   model: 'gpt-4o-mini',
 *   tools: [],
 * };
 * const spec: AgentSpec = AgentSpec.parse(input);
 * ```
 */
export type AgentSpecInput = z.input<typeof AgentSpec>;
