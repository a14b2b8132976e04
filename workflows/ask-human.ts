import { ASK_HUMAN_TOOL } from '../protocol/names.js';
import type { JsonObject, JsonSchema, ToolSpec } from '../protocol/index.js';

/** The built-in tool through which the model asks a person a question; the answer is its result. */
export const ASK_HUMAN_SPEC: ToolSpec = {
  name: ASK_HUMAN_TOOL,
  description:
    'Ask a human a question when you lack a fact or need a judgement. Their answer comes back as the result. ' +
    'Give `choices` when the answer must be one of a few options.',
  parameters: {
    type: 'object',
    properties: {
      question: { type: 'string', minLength: 1, description: 'The question, self-contained.' },
      choices: {
        type: 'array',
        items: { type: 'string' },
        minItems: 1,
        description: 'Allowed answers, if any.',
      },
    },
    required: ['question'],
  },
  safe: false,
};

/**
 * ask_human as an agent's model sees it: with `secret` among its parameters when a tool of the agent
 * declares secrets, so the model can ask a person for one (it never sees the answer).
 */
export function askHumanSpec(tools: ToolSpec[]): ToolSpec {
  const names = [...new Set(tools.flatMap((tool) => (tool.secrets ?? []).map((secret) => secret.name)))];
  if (names.length === 0) return ASK_HUMAN_SPEC;
  return {
    ...ASK_HUMAN_SPEC,
    parameters: {
      ...ASK_HUMAN_SPEC.parameters,
      properties: {
        ...(ASK_HUMAN_SPEC.parameters.properties as JsonObject),
        secret: {
          type: 'string',
          enum: names,
          description:
            'Instead of a plain answer, ask for this secret a tool needs (a password, a code). The person supplies it to the tools that use it; you are told only that it was supplied, never its value.',
        },
      },
    },
  };
}

/** The schema a `respond` answer must meet: one of the choices when given, any JSON otherwise. */
export function answerSchema(args: JsonObject): JsonSchema {
  const choices = args.choices;
  if (Array.isArray(choices) && choices.every((c) => typeof c === 'string'))
    return { type: 'string', enum: choices };
  return {};
}
