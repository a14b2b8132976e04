import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setup, uid, type Harness } from './harness.js';
import { finishSignal, stateQuery } from './workflows.js';

let h: Harness;
let taskQueue: string;
const agent = uid('agent');
const ids: Record<string, string> = {};
let beforeStart = '';

before(async () => {
  h = await setup();
  ({ taskQueue } = await h.worker());
  beforeStart = new Date(Date.now() - 1000).toISOString();
  const specs: [string, number, string, string[]][] = [
    ['a', 2, 'waiting', ['send_email']],
    ['b', 0, 'idle', []],
    ['c', 5, 'waiting', ['transfer', 'send_email']],
  ];
  for (const [name, pending, status, tools] of specs) {
    const handle = h.track(
      await h.client.workflow.start('tagged', {
        taskQueue,
        workflowId: uid(`vis-${name}`),
        args: [pending, agent, status, tools],
      }),
    );
    ids[name] = handle.workflowId;
  }
  // A completed one, to filter on status and close time.
  const done = h.track(
    await h.client.workflow.start('sleeper', { taskQueue, workflowId: uid('vis-done'), args: [1] }),
  );
  await done.result();
  ids.done = done.workflowId;
  // Upserts are visible once each run finished its first task.
  for (const name of ['a', 'b', 'c']) {
    const handle = h.client.workflow.getHandle(ids[name]!);
    for (let i = 0; i < 200; i++) {
      const d = await handle.describe();
      if (d.searchAttributes.CountersignAgent) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
});
after(
  async () => {
    for (const name of ['a', 'b', 'c'])
      await h.client.workflow
        .getHandle(ids[name]!)
        .signal(finishSignal, 'x')
        .catch(() => undefined);
    await h.teardown();
  },
  { timeout: 90_000 } as never,
);

async function list(query: string): Promise<string[]> {
  const out: string[] = [];
  for await (const w of h.client.workflow.list({ query })) out.push(w.workflowId);
  return out.sort();
}
const names = (...n: string[]) => n.map((x) => ids[x]!).sort();

describe('devserver list filters', { timeout: 60_000 }, () => {
  it('filters on Int, Keyword, KeywordList with comparisons, IN, AND/OR and parentheses', async () => {
    const mine = `CountersignAgent = '${agent}'`;
    assert.deepEqual(await list(`${mine} AND CountersignPending > 0`), names('a', 'c'));
    assert.deepEqual(await list(`${mine} AND CountersignPending >= 5`), names('c'));
    assert.deepEqual(await list(`${mine} AND CountersignPending <= 2`), names('a', 'b'));
    assert.deepEqual(await list(`${mine} AND CountersignPending != 0`), names('a', 'c'));
    assert.deepEqual(await list(`${mine} AND CountersignStatus IN ('idle', 'nothing')`), names('b'));
    assert.deepEqual(await list(`${mine} AND CountersignPendingTools = 'transfer'`), names('c'));
    assert.deepEqual(await list(`${mine} AND CountersignPendingTools IN ('send_email')`), names('a', 'c'));
    assert.deepEqual(
      await list(`${mine} AND (CountersignPending = 0 OR CountersignPendingTools = 'transfer')`),
      names('b', 'c'),
    );
    assert.deepEqual(await list(`(${mine}) AND NOT (CountersignPending < 3)`), names('c'));
  });

  it('filters on WorkflowId, WorkflowType, ExecutionStatus and time ranges', async () => {
    assert.deepEqual(await list(`WorkflowId = '${ids.a}'`), names('a'));
    assert.deepEqual(await list(`WorkflowId = '${ids.done}' AND WorkflowType = 'sleeper'`), names('done'));
    assert.deepEqual(
      await list(`WorkflowId = '${ids.done}' AND ExecutionStatus = 'Completed'`),
      names('done'),
    );
    assert.deepEqual(await list(`WorkflowId = '${ids.done}' AND ExecutionStatus = 'Running'`), []);
    assert.deepEqual(
      await list(
        `CountersignAgent = '${agent}' AND ExecutionStatus = 'Running' AND StartTime > '${beforeStart}'`,
      ),
      names('a', 'b', 'c'),
    );
    assert.deepEqual(
      await list(
        `WorkflowId = '${ids.done}' AND CloseTime BETWEEN '${beforeStart}' AND '2999-01-01T00:00:00Z'`,
      ),
      names('done'),
    );
    assert.deepEqual(await list(`CountersignAgent = '${agent}' AND StartTime < '2000-01-01T00:00:00Z'`), []);
  });

  it('counts, pages, and reads memo and attributes from list results', async () => {
    const { count } = await h.client.workflow.count(`CountersignAgent = '${agent}'`);
    assert.equal(count, 3);
    const page = await h.connection.workflowService.listWorkflowExecutions({
      namespace: h.namespace,
      query: `CountersignAgent = '${agent}'`,
      pageSize: 2,
    });
    assert.equal(page.executions?.length, 2);
    assert.ok(page.nextPageToken && page.nextPageToken.length > 0);
    const rest = await h.connection.workflowService.listWorkflowExecutions({
      namespace: h.namespace,
      query: `CountersignAgent = '${agent}'`,
      pageSize: 2,
      nextPageToken: page.nextPageToken,
    });
    assert.equal(rest.executions?.length, 1);
    for await (const w of h.client.workflow.list({ query: `WorkflowId = '${ids.c}'` })) {
      assert.deepEqual(w.searchAttributes.CountersignPendingTools, ['transfer', 'send_email']);
      assert.equal(w.status.name, 'RUNNING');
    }
  });

  it('pages by position in the order: runs that leave the filter or arrive meanwhile shift nothing', async () => {
    const group = uid('paging');
    const start = async (name: string) => {
      const handle = h.track(
        await h.client.workflow.start('tagged', {
          taskQueue,
          workflowId: uid(`page-${name}`),
          args: [1, group, 'waiting', []],
        }),
      );
      while (!(await handle.describe()).searchAttributes.CountersignAgent)
        await new Promise((r) => setTimeout(r, 20));
      return handle;
    };
    const oldest = await start('oldest');
    const middle = await start('middle');
    const newest = await start('newest');
    const query = `CountersignAgent = '${group}' AND ExecutionStatus = 'Running'`;
    const page = (nextPageToken?: Uint8Array | null) =>
      h.connection.workflowService.listWorkflowExecutions({
        namespace: h.namespace,
        query,
        pageSize: 2,
        nextPageToken,
      });
    const first = await page();
    const ids = (p: Awaited<ReturnType<typeof page>>) =>
      (p.executions ?? []).map((e) => e.execution?.workflowId);
    assert.deepEqual(ids(first), [newest.workflowId, middle.workflowId]);
    // The first page's runs leave the filter, and a newer run enters it, before the next page is read.
    await newest.terminate('paging test');
    await middle.terminate('paging test');
    await start('later');
    const second = await page(first.nextPageToken);
    assert.deepEqual(ids(second), [oldest.workflowId]);
    assert.ok(!second.nextPageToken?.length);
    await assert.rejects(
      page(Buffer.from('not a token')),
      (err: { code?: number }) => err.code === 3, // INVALID_ARGUMENT
    );
  });

  it('lists registered search attributes', async () => {
    const res = await h.connection.operatorService.listSearchAttributes({ namespace: h.namespace });
    assert.equal(res.customAttributes?.CountersignPending, 3);
    assert.equal(res.customAttributes?.CountersignPendingTools, 7);
    assert.ok(res.systemAttributes?.WorkflowId !== undefined);
    assert.equal(
      await h.client.workflow
        .getHandle(ids.a!)
        .query(stateQuery)
        .catch(() => 'no state query'),
      'no state query',
    );
  });

  it('lists a history length as of the last visibility update, as Temporal does; describe is live', async () => {
    const handle = h.track(
      await h.client.workflow.start('tagged', {
        taskQueue,
        workflowId: uid('vis-length'),
        args: [1, uid('agent'), 'waiting', []],
      }),
    );
    const listedLength = async () => {
      for await (const info of h.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` }))
        return info.historyLength;
      throw new Error('the run is not listed');
    };
    for (let i = 0; i < 200 && !(await handle.describe()).searchAttributes.CountersignAgent; i++)
      await new Promise((r) => setTimeout(r, 20));
    const described = (await handle.describe()).historyLength;
    assert.equal(await listedLength(), described);

    // A signal nobody handles grows the history without touching the run's list entry.
    await h.client.workflow.getHandle(handle.workflowId).signal('unhandled', 1);
    for (let i = 0; i < 200 && (await handle.describe()).historyLength <= described + 1; i++)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok((await handle.describe()).historyLength > described);
    assert.equal(await listedLength(), described);
    assert.deepEqual(await list(`WorkflowId = '${handle.workflowId}' AND HistoryLength = ${described}`), [
      handle.workflowId,
    ]);

    // Closing writes the entry again.
    await handle.signal(finishSignal, 'x');
    await handle.result();
    assert.equal(await listedLength(), (await handle.describe()).historyLength);
  });
});
