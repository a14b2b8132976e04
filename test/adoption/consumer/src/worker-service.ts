// The worker service of a team that splits its worker from its API: a real Temporal dev server and
// the scripted model (through `countersign/testing`) and the worker that runs the team's agent. It
// prints where Temporal listens, runs until its standard input closes, then prints what the tool ran.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { FakeModel, call, calls, createTestTemporal, say } from 'countersign/testing';
import { createWorker } from 'countersign/worker';
import { executed, refunds } from './agent.js';

Runtime.install({ logger: new DefaultLogger('WARN') });
const temporal = await createTestTemporal({ env: process.env });
const model = await FakeModel.start();
model.script(
  'Refund order A-2001: $25',
  calls(call('refund', { order: 'A-2001', amount: 25 })),
  say('Refunded $25 on A-2001.'),
);
const worker = await createWorker({
  connection: temporal.nativeConnection,
  namespace: temporal.namespace,
  taskQueue: 'adoption-split',
  agents: [refunds],
  model: { baseUrl: model.url, apiKey: 'test' },
});
const stdinClosed = new Promise<void>((resolve) => {
  process.stdin.resume();
  process.stdin.on('end', resolve);
});
try {
  await worker.runUntil(async () => {
    console.log(JSON.stringify({ address: temporal.address, namespace: temporal.namespace }));
    await stdinClosed;
  });
  console.log(JSON.stringify({ executed }));
} finally {
  await model.close();
  await temporal.teardown();
}
