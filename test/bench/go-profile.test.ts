import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classify, foldSmall, KERNEL, OTHER, parsePerfScript, tally } from '../../bench/lib/go-profile.js';

const history = 'go.temporal.io/server/service/history';
const visibilityExecutor = `${history}.(*visibilityQueueTaskExecutor)`;
const transport = 'google.golang.org/grpc/internal/transport.(*http2Server).operateHeaders';
const queueReader = `${history}/queues.(*ReaderImpl).loadAndSubmitTasks`;
const handler = (service: string, method: string) =>
  `go.temporal.io/server/api/${service.toLowerCase()}/v1._${service}_${method}_Handler`;

// Chains are leaf first, as perf prints them, and end at the goroutine's start.
test('the first rule in priority order names a chain, wherever its frame is', () => {
  // A handler outranks the gRPC transport it runs under, and the GC assist it does.
  assert.equal(
    classify([
      'runtime.gcAssistAlloc',
      `${history}.(*historyEngineImpl).RespondWorkflowTaskCompleted`,
      handler('HistoryService', 'RespondWorkflowTaskCompleted'),
      transport,
      'runtime.goexit',
    ]),
    'history: RespondWorkflowTaskCompleted',
  );
  // A queue task outranks the handler of the call it makes, and the queue machinery that runs it.
  assert.equal(
    classify([
      handler('MatchingService', 'AddWorkflowTask'),
      `${visibilityExecutor}.processUpsertExecution`,
      `${visibilityExecutor}.Execute`,
      queueReader,
      'runtime.goexit',
    ]),
    'visibility: UpsertExecution',
  );
  assert.equal(
    classify([`${visibilityExecutor}.Execute`, queueReader, 'runtime.goexit']),
    'visibility: executor',
  );
  assert.equal(
    classify([`${history}.(*timerQueueActiveTaskExecutor).executeActivityTimeoutTask`, 'runtime.goexit']),
    'timer: ActivityTimeout',
  );
  assert.equal(
    classify([handler('WorkflowService', 'StartWorkflowExecution'), transport]),
    'frontend: StartWorkflowExecution',
  );
  assert.equal(
    classify(['runtime.scanobject', 'runtime.gcBgMarkWorker', 'runtime.goexit']),
    'GC (background)',
  );
  assert.equal(classify(['runtime.memmove', transport, 'runtime.goexit']), 'gRPC transport');
  assert.equal(classify(['runtime.findRunnable', 'runtime.schedule', 'runtime.mcall']), 'Go scheduler');
  assert.equal(classify(['runtime.copystack', 'runtime.newstack', 'runtime.morestack']), 'stack growth');
});

test('a chain no rule knows is other', () => {
  assert.equal(classify(['compress/flate.(*compressor).deflate', 'runtime.goexit']), OTHER);
  assert.equal(classify([KERNEL, KERNEL]), OTHER);
});

test('samples are counted by category, with those whose leaf is in the kernel', () => {
  const write = [KERNEL, KERNEL, 'syscall.Syscall', `${visibilityExecutor}.processCloseExecution`];
  const close = ['runtime.memmove', `${visibilityExecutor}.processCloseExecution`];
  // A kernel frame under the leaf is not kernel time of the sample.
  const other = ['runtime.memmove', KERNEL];
  const profile = tally([write, close, close, other]);
  assert.deepEqual(profile, {
    samples: 4,
    categories: [
      { name: 'visibility: CloseExecution', samples: 3, kernel: 1 },
      { name: OTHER, samples: 1, kernel: 0 },
    ],
  });
  assert.deepEqual(foldSmall(profile, 0.3), [
    { name: 'visibility: CloseExecution', samples: 3, kernel: 1 },
    { name: 'rest', samples: 1, kernel: 0 },
  ]);
});

test("perf script's chains are read leaf first, the binary's frames as file offsets", () => {
  const binary = '/work/.venv/bin/temporal';
  const text = [
    '',
    '\tffffffff81407c30 ([kernel.kallsyms])',
    `\t         219d029 (${binary})`,
    '',
    `\t          e7ae53 (${binary})`,
    '\t    7fffd980e390 ([vdso])',
    '',
  ].join('\n');
  assert.deepEqual(parsePerfScript(text, binary), [
    [{ outside: KERNEL }, { offset: 0x219d029 }],
    [{ offset: 0xe7ae53 }, { outside: '[vdso]' }],
  ]);
});
