/** A worker in a process of its own, for tests that kill it: its cached runs stay sticky to it for an hour. */
import { NativeConnection, Worker } from '@temporalio/worker';
import { activities, workflowsPath } from './harness.js';

const connection = await NativeConnection.connect({ address: process.env.STICKY_ADDRESS! });
const worker = await Worker.create({
  connection,
  namespace: process.env.STICKY_NAMESPACE!,
  taskQueue: process.env.STICKY_TASK_QUEUE!,
  workflowsPath,
  activities,
  stickyQueueScheduleToStartTimeout: '1 hour',
});
const running = worker.run();
console.log('worker ready');
await running;
