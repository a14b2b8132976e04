import { z } from 'zod';
import {
  ApprovalPolicy,
  SecretSpec,
  ToolSpec,
  type ApprovalPolicyInput,
  type JsonSchema,
  type JsonValue,
  type SecretSpecInput,
} from '../protocol/index.js';

/**
 * What a tool's `execute` is told about the call it runs.
 *
 * @example
 * ```ts
 * import type { ToolContext } from 'countersign';
 *
 * async function refund(args: { orderId: string; amount: number }, context: ToolContext) {
 *   // The same key on every retry of this call: the payment provider refunds once.
 *   await payments.refund({ ...args, idempotencyKey: context.idempotencyKey }, { signal: context.signal });
 *   return { refunded: args.amount, approvedBy: context.approvedBy };
 * }
 * ```
 */
export interface ToolContext {
  runId: string;
  toolCallId: string;
  /** Stable across activity retries and worker crashes: a tool with side effects dedupes on it. */
  idempotencyKey: string;
  /** The approval that allowed this call, when it was gated. */
  trackingId?: string;
  approvedBy: string[];
  /** Aborted when the run is cancelled or the activity times out. */
  signal: AbortSignal;
  /**
   * Reports how far this attempt has come ("request sent", "row 400 of 1000"). Should the attempt
   * end without saying how (the worker dies), the person asked about its outcome sees the last
   * step that reached the server.
   */
  progress(step: string): void;
  /**
   * The secrets the tool declares (`defineTool({ secrets })`), by name, as a person supplied them
   * for this call. Use them, never return or log them: Countersign withholds any output or error
   * that contains one, but cannot see where else they go.
   */
  secrets: Readonly<Record<string, string>>;
}

/**
 * A tool as `defineTool` returns it and `defineAgent` takes it. Make one with `defineTool`, which
 * checks its policy, rather than by hand.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { defineTool, type ToolDefinition } from 'countersign';
 *
 * const LookupArgs = z.object({ orderId: z.string() });
 * export const lookup: ToolDefinition<typeof LookupArgs> = defineTool({
 *   name: 'lookup_order',
 *   description: 'Look an order up.',
 *   parameters: LookupArgs,
 *   safe: true, // reads only: never waits for a human
 *   execute: async ({ orderId }) => ({ orderId, status: 'shipped' }),
 * });
 * ```
 */
export interface ToolDefinition<Args extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  parameters: Args;
  /**
   * The arguments' JSON Schema when it comes from elsewhere than zod (an MCP server's `inputSchema`):
   * what the model, the workflow and the inbox see, exactly as given. `parameters` then checks
   * arguments against it.
   */
  parametersJsonSchema?: JsonSchema;
  /** Schema of a human-supplied result (`respond`), when a human may answer in the tool's place. */
  result?: z.ZodType;
  safe: boolean;
  /** Another attempt of a call is safe; see `defineTool`'s `idempotent`. */
  idempotent: boolean;
  /** Attempts of a call that fails in a known way; 3 when absent. */
  maxAttempts?: number;
  approval?: ApprovalPolicy;
  /** Secrets a person supplies to each call; see `defineTool`'s `secrets`. */
  secrets?: SecretSpec[];
  execute: (args: z.output<Args>, context: ToolContext) => Promise<JsonValue>;
}

type ToolOptions<Args extends z.ZodObject> = {
  name: string;
  description: string;
  parameters: Args;
  result?: z.ZodType;
  /**
   * Whether another attempt of a call is safe: true when the tool dedupes on
   * `context.idempotencyKey` (a payment API that takes one) or has no lasting effect. Then an
   * attempt cut off (its worker died, its time ran out) is simply run again. When false, such an
   * attempt's outcome is unknown and a person says what happened; it is never repeated without
   * one. Default: true for a `safe` tool, false for any other, since a blind retry of an SSH
   * command or an email send does twice what a person approved once.
   */
  idempotent?: boolean;
  /** Attempts of a call that fails in a known way (its `execute` throws): 1 to 10, 3 by default. */
  maxAttempts?: number;
  /**
   * Secrets the tool needs from a person (a password, a one-time code), which the model never
   * proposes and never sees. Before each call runs, once its approval (if any) is given, a person
   * its approvers name supplies each secret the run does not hold already; `execute` reads them
   * in `context.secrets`. With `keep: 'run'` one answer serves every later call of the run.
   * Needs the secret keys on the API and the worker (`COUNTERSIGN_SECRET_KEYS`).
   */
  secrets?: SecretSpecInput[];
  execute: (args: z.output<Args>, context: ToolContext) => Promise<JsonValue>;
} & ({ safe: true; approval?: never } | { safe?: false; approval?: ApprovalPolicyInput });

/**
 * Defines a tool an agent may call: its arguments as a zod schema (the model and the inbox see the
 * JSON Schema derived from it), what it does, and the policy that says when a human must approve.
 * Without `safe: true` or an `approval` policy, every call needs a human.
 *
 * @example
 * ```ts
 * const refund = defineTool({
 *   name: 'refund_order',
 *   description: 'Refund an order.',
 *   parameters: z.object({ orderId: z.string(), amount: z.number().positive() }),
 *   approval: {
 *     when: { if: { arg: 'amount', op: 'gt', value: 100 }, then: 'approve', else: 'auto' },
 *     approvers: ['support-lead'],
 *     editableFields: ['amount'],
 *   },
 *   execute: async ({ orderId, amount }, { idempotencyKey }) =>
 *     payments.refund({ orderId, amount, idempotencyKey }),
 * });
 * ```
 */
export function defineTool<Args extends z.ZodObject>(options: ToolOptions<Args>): ToolDefinition<Args> {
  return {
    name: options.name,
    description: options.description,
    parameters: options.parameters,
    result: options.result,
    safe: options.safe === true,
    idempotent: options.idempotent ?? options.safe === true,
    ...(options.maxAttempts !== undefined
      ? { maxAttempts: attemptsOf(options.name, options.maxAttempts) }
      : {}),
    approval: options.approval ? ApprovalPolicy.parse(options.approval) : undefined,
    ...(options.secrets?.length ? { secrets: secretsOf(options.name, options.secrets) } : {}),
    execute: options.execute,
  };
}

/** The serializable spec the model, the workflow and the API see; JSON Schema derived from zod. */
export function toToolSpec(tool: ToolDefinition): ToolSpec {
  return ToolSpec.parse({
    name: tool.name,
    description: tool.description,
    parameters: tool.parametersJsonSchema ?? z.toJSONSchema(tool.parameters, { io: 'input' }),
    resultSchema: tool.result ? z.toJSONSchema(tool.result, { io: 'input' }) : undefined,
    safe: tool.safe,
    idempotent: tool.idempotent,
    maxAttempts: tool.maxAttempts,
    approval: tool.approval,
    secrets: tool.secrets,
  });
}

function secretsOf(tool: string, secrets: SecretSpecInput[]): SecretSpec[] {
  const parsed = secrets.map((secret) => {
    const checked = SecretSpec.safeParse(secret);
    if (!checked.success)
      throw new Error(
        `tool ${tool}: secret ${JSON.stringify(secret?.name)}: ${checked.error.issues[0]?.message}`,
      );
    return checked.data;
  });
  const names = parsed.map((secret) => secret.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new Error(`tool ${tool}: secret ${twice} is declared twice`);
  if (parsed.length > 10) throw new Error(`tool ${tool}: at most 10 secrets`);
  return parsed;
}

function attemptsOf(tool: string, attempts: number): number {
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > 10)
    throw new Error(`tool ${tool}: maxAttempts must be a whole number from 1 to 10, not ${attempts}`);
  return attempts;
}
