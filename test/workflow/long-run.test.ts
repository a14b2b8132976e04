// The long run of the production-limits issue: 300 turns, each tool output 50 KB, on the dev server
// with its default limits. Outputs go to a content store; the history keeps references.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { startRun } from '../../client/index.js';
import { defineAgent, defineTool } from '../../define/index.js';
import { fileContentStore } from '../../content-store/content-store.js';
import { call, calls, say } from '../support/fake-model.js';
import { bytesPerTurn, eventBytes, historyChain } from '../support/history-chain.js';
import type { TestWorker } from '../support/worker.js';
import { startHarness, uniqueInput, type Harness } from './fixtures/harness.js';

const TURNS = 300;
const OUTPUT_BYTES = 50 * 1024;
/** The server's warning points for one history; a run that passes them is on its way to being terminated. */
const WARN_EVENTS = 10_240;
const WARN_BYTES = 10 * 1024 * 1024;

const readChunk = defineTool({
  name: 'read_chunk',
  description: 'Read a chunk of a log.',
  parameters: z.object({ chunk: z.number().int() }),
  safe: true,
  async execute(args) {
    return `${args.chunk}:`.padEnd(OUTPUT_BYTES, 'x');
  },
});
const reader = defineAgent({
  name: 'reader',
  description: 'Reads logs.',
  instructions: 'You read logs.',
  model: 'fake-model',
  maxTurns: TURNS + 1,
  tools: [readChunk],
});

/** A worker without a content store: outputs stay in the run. */
const bigReader = defineAgent({
  name: 'big-reader',
  description: 'Reads large logs.',
  instructions: 'You read logs.',
  model: 'fake-model',
  tools: [
    defineTool({
      name: 'read_big',
      description: 'Read a large log.',
      parameters: z.object({ part: z.number().int() }),
      safe: true,
      async execute(args) {
        return `${args.part}:`.padEnd(900 * 1024, 'y');
      },
    }),
  ],
});

let h: Harness;
let worker: TestWorker;
let plainWorker: TestWorker;
const storeDir = mkdtempSync(path.join(tmpdir(), 'countersign-content-'));
before(async () => {
  h = await startHarness();
  worker = await h.startWorker([reader], { contentStore: fileContentStore(storeDir) });
  plainWorker = await h.startWorker([bigReader]);
});
after(async () => {
  await h.close();
});

test(`${TURNS} turns of ${OUTPUT_BYTES / 1024} KB tool outputs complete within the server's default limits, writing as much to history each turn`, async () => {
  const input = uniqueInput('long read');
  const conversation = h.fake.script(
    input,
    ...Array.from({ length: TURNS }, (_, i) => calls(call('read_chunk', { chunk: i }, `c${i}`))),
    say('Read every chunk.'),
  );
  const { runId } = await startRun(h.client, { agent: reader, input, taskQueue: worker.taskQueue });
  const result = await h.result(runId);
  assert.equal(result.status, 'completed', result.reason);
  assert.equal(result.state!.turns, TURNS + 1);

  // The model read every output whole, read back from the store.
  const last = conversation.requests.at(-1)!.messages.filter((m) => m.role === 'tool');
  assert.equal(last.length, TURNS);
  for (const [i, message] of last.entries()) {
    assert.equal(String(message.content).length, OUTPUT_BYTES);
    assert.ok(String(message.content).startsWith(`${i}:`));
  }
  // The store's outputs are in its subdirectories, beside the file holding its id.
  const outputs = readdirSync(storeDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => readdirSync(path.join(storeDir, entry.name)));
  assert.equal(outputs.length, TURNS);

  const executions = await historyChain(h.client, runId);
  for (const events of executions) {
    const bytes = events.reduce((sum, event) => sum + eventBytes(event), 0);
    assert.ok(events.length < WARN_EVENTS && bytes < WARN_BYTES, `${events.length} events, ${bytes} bytes`);
  }
  // Flat: the last turn writes no more than the second, bar the digits of a larger chunk number.
  const perTurn = bytesPerTurn(executions);
  assert.equal(perTurn.length, TURNS + 1);
  assert.ok(
    perTurn[TURNS - 1]! <= perTurn[1]! + 128,
    `turn 2: ${perTurn[1]} bytes, turn ${TURNS}: ${perTurn[TURNS - 1]}`,
  );
});

test('a run whose final state passes a payload completes, its result keeping the beginning of each long message', async () => {
  const input = uniqueInput('big result');
  const answer = 'z'.repeat(300 * 1024);
  h.fake.script(
    input,
    calls(call('read_big', { part: 1 }, 'b1')),
    calls(call('read_big', { part: 2 }, 'b2')),
    say(answer),
  );
  const { runId } = await startRun(h.client, { agent: bigReader, input, taskQueue: plainWorker.taskQueue });
  // Two 900 KB outputs and a 300 KB answer: over the 2 MB a result may be, untrimmed.
  const result = await h.result(runId);
  assert.equal(result.status, 'completed');
  assert.equal(result.output, answer);
  const tool = result.state!.transcript.find((m) => m.role === 'tool')!;
  assert.match(String(tool.content), /^1:y+… \[921088 more characters, not kept in the run's result\]$/);
  assert.ok(Buffer.byteLength(JSON.stringify(result)) < 2 * 1024 * 1024);
});
