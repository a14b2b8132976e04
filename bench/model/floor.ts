import OpenAI from 'openai';
import { answerRequests, reportReady } from '../../test/faults/support/child.js';
import { MODEL_NAME, TOOL_NAME } from '../lib/scenario.js';
import { now } from '../lib/stats.js';

/**
 * The floor: the fake model's round trip through the `openai` client, one scenario model call at a
 * time. No system can finish a run faster than two of these.
 */
const openai = new OpenAI({ apiKey: 'bench', baseURL: process.env.BENCH_MODEL_URL, maxRetries: 0 });
const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: TOOL_NAME, parameters: { type: 'object', properties: { ref: { type: 'string' } } } },
  },
];

answerRequests(async (message) => {
  const samples: number[] = [];
  for (let i = 0; i < Number(message.runs); i++) {
    const t0 = now();
    await openai.chat.completions.create({
      model: MODEL_NAME,
      messages: [{ role: 'user', content: `ref=floor-${i}` }],
      tools,
    });
    samples.push(now() - t0);
  }
  return samples;
});
reportReady({});
