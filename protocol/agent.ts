import { z } from 'zod';
import { JsonSchema } from './json.js';
import { ApprovalPolicy } from './policy.js';

export const NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
export const Name = z.string().regex(NAME_PATTERN, 'letters, digits, _ and -, starting with a letter');

/** The serializable face of a tool: what the model, the workflow, the API and the inbox see. */
export const ToolSpec = z.strictObject({
  name: Name,
  description: z.string(),
  /** JSON Schema of the arguments, derived from the tool's zod schema. */
  parameters: JsonSchema,
  /** JSON Schema of a human-supplied result (`respond`), when the tool declares one. */
  resultSchema: JsonSchema.optional(),
  /** Marked safe: never gated. A tool that is neither safe nor given a policy needs approval. */
  safe: z.boolean().default(false),
  approval: ApprovalPolicy.optional(),
});
export type ToolSpec = z.output<typeof ToolSpec>;

/** The serializable face of an agent. A run takes a copy at start, so its policies never change under it. */
export const AgentSpec = z.strictObject({
  name: Name,
  description: z.string().default(''),
  instructions: z.string(),
  model: z.string().min(1),
  maxTurns: z.number().int().min(1).max(200).default(20),
  /** Present all gated calls of one turn to a human as one plan. */
  planReview: z.boolean().default(false),
  /** Offer the built-in `ask_human` tool. */
  askHuman: z.boolean().default(false),
  tools: z.array(ToolSpec),
});
export type AgentSpec = z.output<typeof AgentSpec>;
export type AgentSpecInput = z.input<typeof AgentSpec>;
