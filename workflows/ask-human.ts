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

/** The schema a `respond` answer must meet: one of the choices when given, any JSON otherwise. */
export function answerSchema(args: JsonObject): JsonSchema {
  const choices = args.choices;
  if (Array.isArray(choices) && choices.every((c) => typeof c === 'string'))
    return { type: 'string', enum: choices };
  return {};
}
