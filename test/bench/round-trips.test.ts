import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  executionChain,
  medianRoundTrips,
  roundTripsFromHistory,
  type CountedEvent,
} from '../../bench/lib/round-trips.js';

/** One event of a kind, numbered as the server numbers it. */
const event = (taskId: number, kind: string, attributes: object = {}): CountedEvent => ({
  taskId: { toString: () => String(taskId) },
  [`${kind}EventAttributes`]: attributes,
});

// The tail of a Countersign run's history as the dev server wrote it (event ids 25 to 50): each
// gap in the numbers is one transaction; the sqlite history_node table held 9 batches from the signal.
const countersignRun: CountedEvent[] = [
  event(1048635, 'workflowTaskStarted'),
  event(1048639, 'workflowTaskCompleted'),
  event(1048641, 'workflowExecutionSignaled'),
  event(1048642, 'workflowTaskScheduled'),
  event(1048646, 'workflowTaskStarted'),
  event(1048651, 'workflowTaskCompleted'),
  event(1048652, 'upsertWorkflowSearchAttributes'),
  event(1048653, 'workflowPropertiesModified'),
  event(1048654, 'timerCanceled'),
  event(1048655, 'markerRecorded', { markerName: 'core_patch' }),
  event(1048656, 'upsertWorkflowSearchAttributes'),
  event(1048657, 'activityTaskScheduled'),
  event(1048661, 'activityTaskStarted'),
  event(1048662, 'activityTaskCompleted'),
  event(1048663, 'workflowTaskScheduled'),
  event(1048667, 'workflowTaskStarted'),
  event(1048672, 'workflowTaskCompleted'),
  event(1048673, 'upsertWorkflowSearchAttributes'),
  event(1048674, 'activityTaskScheduled'),
  event(1048678, 'activityTaskStarted'),
  event(1048679, 'activityTaskCompleted'),
  event(1048680, 'workflowTaskScheduled'),
  event(1048684, 'workflowTaskStarted'),
  event(1048688, 'workflowTaskCompleted'),
  event(1048689, 'upsertWorkflowSearchAttributes'),
  event(1048690, 'workflowPropertiesModified'),
  event(1048691, 'workflowExecutionCompleted'),
];

test('a signalled run: workflow tasks, activities and batches from the signal to the end', () => {
  assert.deepEqual(roundTripsFromHistory([countersignRun]), {
    workflowTasks: 3,
    activities: 2,
    localActivities: 0,
    messages: 1,
    writes: 9,
  });
});

test('an update counts from the batch that recorded it, and local activities are counted', () => {
  // A speculative workflow task is written with the update it accepted, in one transaction.
  const updated: CountedEvent[] = [
    event(100, 'workflowTaskCompleted'),
    event(104, 'workflowTaskScheduled'),
    event(105, 'workflowTaskStarted'),
    event(106, 'workflowTaskCompleted'),
    event(107, 'workflowExecutionUpdateAccepted'),
    event(108, 'markerRecorded', { markerName: 'core_local_activity' }),
    event(109, 'markerRecorded', { markerName: 'core_patch' }),
    event(110, 'workflowExecutionUpdateCompleted'),
    event(111, 'workflowExecutionCompleted'),
  ];
  assert.deepEqual(roundTripsFromHistory([updated]), {
    workflowTasks: 1,
    activities: 0,
    localActivities: 1,
    messages: 1,
    writes: 1,
  });
});

test('a run that continues as new is counted over both executions', async () => {
  const first: CountedEvent[] = [
    event(10, 'workflowTaskCompleted'),
    event(12, 'workflowExecutionSignaled'),
    event(13, 'workflowTaskScheduled'),
    event(15, 'workflowTaskStarted'),
    event(17, 'workflowTaskCompleted'),
    {
      ...event(18, 'workflowExecutionContinuedAsNew'),
      workflowExecutionContinuedAsNewEventAttributes: { newExecutionRunId: 'second' },
    },
  ];
  // The continued run's numbers follow on: still its first batch is a write of its own.
  const second: CountedEvent[] = [
    event(19, 'workflowExecutionStarted'),
    event(20, 'workflowTaskScheduled'),
    event(23, 'workflowTaskStarted'),
    event(25, 'workflowTaskCompleted'),
    event(26, 'activityTaskScheduled'),
    event(28, 'activityTaskStarted'),
    event(29, 'activityTaskCompleted'),
    event(30, 'workflowTaskScheduled'),
    event(32, 'workflowTaskStarted'),
    event(34, 'workflowTaskCompleted'),
    event(35, 'workflowExecutionCompleted'),
  ];
  const histories: Record<string, CountedEvent[]> = { first, second };
  const chain = await executionChain(async (runId) => histories[runId]!, 'first');
  assert.deepEqual(chain, [first, second]);
  assert.deepEqual(roundTripsFromHistory(chain), {
    workflowTasks: 3,
    activities: 1,
    localActivities: 0,
    messages: 1,
    writes: 9,
  });
});

test('a run with no decision is an error, not a count', () => {
  assert.throws(() => roundTripsFromHistory([[event(1, 'workflowExecutionStarted')]]), /no decision/);
});

test('the median of each count over the runs; counts a system does not have stay out', () => {
  assert.deepEqual(
    medianRoundTrips([
      { workflowTasks: 3, activities: 2, localActivities: 0, messages: 1, writes: 9 },
      { workflowTasks: 4, activities: 2, localActivities: 0, messages: 1, writes: 11 },
      { workflowTasks: 3, activities: 2, localActivities: 0, messages: 1, writes: 9 },
    ]),
    { workflowTasks: 3, activities: 2, localActivities: 0, messages: 1, writes: 9 },
  );
  assert.deepEqual(medianRoundTrips([{ writes: 4 }, { writes: 2 }]), { writes: 2 });
  assert.equal(medianRoundTrips([]), undefined);
});
