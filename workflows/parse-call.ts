import { ASK_HUMAN_TOOL } from '../protocol/names.js';
import type { JsonObject, ToolCall, ToolSpec } from '../protocol/index.js';
import { evaluatePolicy, type PolicyDecision } from './evaluate-policy.js';
import type { RunContext } from './run-context.js';
import { invalidArgsMessage, unknownToolMessage } from './tool-messages.js';
import { validateAgainstSchema } from './validate-args.js';

/** A proposed call, sorted: ask_human, a sub-agent's, a call of a tool with its verdict, or one answered at once (invalid). */
export type ParsedCall =
  | { kind: 'ask'; call: ToolCall; args: JsonObject }
  | { kind: 'agent'; call: ToolCall; task: string }
  | { kind: 'tool'; call: ToolCall; tool: ToolSpec; args: JsonObject; policy: PolicyDecision }
  | { kind: 'invalid'; call: ToolCall; message: string };

/** Reads one proposed call: the model's arguments must parse and match the tool's schema before anyone sees them. */
export function parseCall(ctx: RunContext, call: ToolCall): ParsedCall {
  const name = call.function.name;
  let args: unknown;
  try {
    args = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
  } catch {
    return { kind: 'invalid', call, message: invalidArgsMessage(name, 'the arguments are not valid JSON') };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return {
      kind: 'invalid',
      call,
      message: invalidArgsMessage(name, 'the arguments must be a JSON object'),
    };
  }
  const object = args as JsonObject;
  if (name === ASK_HUMAN_TOOL && ctx.agent.askHuman) {
    if (typeof object.question !== 'string' || object.question.trim() === '') {
      return { kind: 'invalid', call, message: invalidArgsMessage(name, 'a question is required') };
    }
    if (object.secret !== undefined && typeof object.secret !== 'string') {
      return { kind: 'invalid', call, message: invalidArgsMessage(name, 'secret must name a secret') };
    }
    return { kind: 'ask', call, args: object };
  }
  if (ctx.subAgents.has(name)) {
    const { task, ...rest } = object;
    if (typeof task !== 'string' || task.trim() === '' || Object.keys(rest).length > 0)
      return {
        kind: 'invalid',
        call,
        message: invalidArgsMessage(name, 'a task, and nothing else, is required'),
      };
    return { kind: 'agent', call, task };
  }
  const tool = ctx.tools.get(name);
  if (!tool) return { kind: 'invalid', call, message: unknownToolMessage(name) };
  const errors = validateAgainstSchema(tool.parameters, object);
  if (errors.length > 0) return { kind: 'invalid', call, message: invalidArgsMessage(name, errors) };
  return {
    kind: 'tool',
    call,
    tool,
    args: object,
    policy: evaluatePolicy(tool, object, ctx.totals.of(tool.name, [call.id])),
  };
}
