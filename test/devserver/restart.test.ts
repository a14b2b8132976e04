import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnDevServerProcess } from '../support/temporal-server.js';
import { COUNTERSIGN_ATTRIBUTES, activities, uid, workflowsPath } from './harness.js';
import { finishSignal, stateQuery } from './workflows.js';

/** Kills the devserver process with SIGKILL mid-workflow and restarts it on the same database. */
describe(
  'devserver restart',
  { timeout: 90_000, skip: process.env.TEMPORAL_ADDRESS ? 'needs the embedded devserver' : false },
  () => {
    it('keeps workflows, signals, timers and activities across kill -9', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'devserver-restart-'));
      const dbPath = join(dir, 'dev.db');
      let server = await spawnDevServerProcess({ dbPath, port: 0 });
      const port = server.port;
      const connection = await Connection.connect({ address: server.address });
      const client = new Client({ connection });
      await connection.operatorService.addSearchAttributes({
        namespace: 'default',
        searchAttributes: COUNTERSIGN_ATTRIBUTES,
      });
      const native = await NativeConnection.connect({ address: server.address });
      const taskQueue = uid('restart');
      const worker = await Worker.create({ connection: native, taskQueue, workflowsPath, activities });
      const running = worker.run();
      try {
        // One workflow waits on a signal; another sleeps on a timer that comes due while the server is down.
        const waiting = await client.workflow.start('tour', {
          taskQueue,
          workflowId: uid('restart-tour'),
          args: ['kill'],
        });
        const sleeping = await client.workflow.start('sleeper', {
          taskQueue,
          workflowId: uid('restart-sleep'),
          args: [1500],
        });
        for (let i = 0; i < 200 && (await waiting.query(stateQuery)) !== 'waiting'; i++)
          await new Promise((r) => setTimeout(r, 25));

        server.kill('SIGKILL');
        await server.exited;
        // The run waiting on a signal was at rest: its history was compacted into one compressed row.
        const db = new Database(dbPath, { readonly: true });
        const compacted = db
          .prepare<[], { count: number }>('SELECT count(*) AS count FROM compacted_histories')
          .get()!.count;
        db.close();
        assert.ok(compacted >= 1, `${compacted} compacted histories`);
        await new Promise((r) => setTimeout(r, 2000));
        server = await spawnDevServerProcess({ dbPath, port });
        await waiting.signal(finishSignal, 'after-restart');

        assert.equal(await waiting.result(), 'hello kill/after-restart');
        assert.equal(await sleeping.result(), 'woke');

        // A fresh workflow after the restart also runs, through the reconnected worker.
        const after = await client.workflow.start('waitForFinish', {
          taskQueue,
          workflowId: uid('restart-after'),
        });
        await after.signal(finishSignal, 'after');
        assert.equal(await after.result(), 'after');

        const histories = await Promise.all(
          [waiting, sleeping, after].map(async (h) => ({
            workflowId: h.workflowId,
            history: await h.fetchHistory(),
          })),
        );
        for await (const r of Worker.runReplayHistories({ workflowsPath }, histories)) {
          assert.equal(r.error, undefined, `replay ${r.workflowId}`);
        }
      } finally {
        worker.shutdown();
        await running;
        await native.close();
        await connection.close();
        server.kill('SIGTERM');
        await server.exited;
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
