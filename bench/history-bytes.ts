// Bytes written to a run's Temporal history per turn, over a long run: one automatic tool call a
// turn returning --output-kb of text, --turns turns, on a dev server of its own with the server's
// default limits. Prints the bytes of chosen turns, the executions of the run's chain and their
// largest history. `npm run bench:history -- --turns 300 --output-kb 2`
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import proto from '@temporalio/proto';
import { z } from 'zod';
import { startRun } from '../client/index.js';
import { defineAgent, defineTool } from '../define/index.js';
import { fileContentStore } from '../content-store/content-store.js';
import { call, calls, FakeModel, say } from '../test/support/fake-model.js';
import { bytesPerTurn, eventBytes, historyChain } from '../test/support/history-chain.js';
import { getTestTemporal } from '../test/support/temporal-server.js';
import { startTestWorker } from '../test/support/worker.js';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '300' },
    'output-kb': { type: 'string', default: '2' },
    // Tool outputs over 16 KB go to a content store in a temporary directory.
    store: { type: 'boolean', default: false },
  },
});
const turns = Number(values.turns);
const outputKb = Number(values['output-kb']);
if (!Number.isInteger(turns) || turns < 1 || !(outputKb >= 0))
  throw new Error('--turns and --output-kb take numbers');

const output = 'x'.repeat(outputKb * 1024);
const readChunk = defineTool({
  name: 'read_chunk',
  description: 'Read a chunk of a log.',
  parameters: z.object({ chunk: z.number().int() }),
  safe: true,
  async execute(args) {
    // Each chunk its own text: a content-addressed store keeps one file a chunk.
    return { chunk: args.chunk, text: `${args.chunk}:${output}` };
  },
});
const reader = defineAgent({
  name: 'reader',
  description: 'Reads logs.',
  instructions: 'You read logs.',
  model: 'fake-model',
  maxTurns: turns + 1,
  tools: [readChunk],
});

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const temporal = await getTestTemporal();
const fake = await FakeModel.start();
const worker = await startTestWorker({
  address: temporal.address,
  namespace: temporal.namespace,
  agents: [reader],
  model: { baseUrl: fake.url, apiKey: 'bench' },
  ...(values.store
    ? { contentStore: fileContentStore(mkdtempSync(path.join(tmpdir(), 'countersign-content-'))) }
    : {}),
});
try {
  const input = `read ${turns} chunks`;
  fake.script(
    input,
    ...Array.from({ length: turns }, (_, i) => calls(call('read_chunk', { chunk: i }, `c${i}`))),
    say('Read them all.'),
  );
  const started = Date.now();
  const { runId } = await startRun(temporal.client, { agent: reader, input, taskQueue: worker.taskQueue });
  const result = (await temporal.client.workflow.getHandle(runId).result()) as {
    status: string;
    reason?: string;
  };
  if (result.reason) console.log(`run ${result.status}: ${result.reason}`);
  const seconds = (Date.now() - started) / 1000;

  const executions = await historyChain(temporal.client, runId);
  const perTurn = bytesPerTurn(executions);
  const bytes = (events: HistoryEvent[]) => events.reduce((sum, event) => sum + eventBytes(event), 0);
  const shown = [1, 2, 10, 50, 100, 200, 300, 500, 1000].filter((turn) => turn <= perTurn.length);
  console.log(
    `run ${result.status} in ${seconds.toFixed(1)} s: ${turns} turns, tool output ${outputKb} KB${values.store ? ', content store' : ''}`,
  );
  console.log(
    `bytes written to history per turn: ${shown.map((t) => `turn ${t}: ${perTurn[t - 1]}`).join(', ')}`,
  );
  console.log(
    `executions: ${executions.length}; largest history: ${Math.max(...executions.map((e) => e.length))} events, ` +
      `${Math.max(...executions.map(bytes))} bytes; all histories: ${executions.reduce((s, e) => s + bytes(e), 0)} bytes`,
  );
} finally {
  await worker.stop();
  await fake.close();
  await temporal.stop();
}
