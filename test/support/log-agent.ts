import { z } from 'zod';
import { defineAgent, defineTool } from '../../define/index.js';

/**
 * A log of about 40 KB, over the 16 KB from which a worker with a content store keeps a tool output
 * there: many lines, each different, with markup and non-ASCII text that must come back as they are.
 */
export function logText(name: string): string {
  const lines = Array.from(
    { length: 600 },
    (_, i) => `${name} line ${i}: <b>request</b> & "réponse" ✓ took ${(i * 7) % 1000} ms`,
  );
  return `${lines.join('\n')}\nend of ${name}\n`;
}

/** Reads a log, safely (no approval): its output is the one a reviewer wants to read afterwards. */
export const logReader = defineAgent({
  name: 'log-reader',
  description: 'Reads service logs.',
  instructions: 'You read logs.',
  tools: [
    defineTool({
      name: 'read_log',
      description: 'Read the log of a service.',
      parameters: z.object({ service: z.string().min(1) }),
      safe: true,
      execute: async ({ service }) => logText(service),
    }),
  ],
});
