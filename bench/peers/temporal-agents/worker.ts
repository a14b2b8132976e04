import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { OpenAIProvider } from '@openai/agents-openai';
import { OpenAIAgentsPlugin } from '@temporalio/openai-agents';
import { NativeConnection, Worker } from '@temporalio/worker';
import { reportReady } from '../../../test/faults/support/child.js';

const TASK_QUEUE = 'bench-openai-agents';

// This process uses the Temporal SDK that @temporalio/openai-agents pins (1.23), not Countersign's.
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const plugin = new OpenAIAgentsPlugin({
  modelProvider: new OpenAIProvider({
    // The SDK's declarations resolve openai's CommonJS types, ours its ESM ones: one class at run time.
    openAIClient: new OpenAI({ apiKey: 'bench', baseURL: process.env.BENCH_MODEL_URL }) as never,
    useResponses: false,
  }),
  modelParams: { startToCloseTimeout: '30s' },
});
const COMMONJS_FIRST = ['require', 'browser', 'default'];
const worker = await Worker.create({
  connection,
  taskQueue: TASK_QUEUE,
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  plugins: [plugin],
  // The integration is CommonJS and tests `instanceof RunState` against agents-core's CommonJS
  // build; an ESM workflow would import the ESM build, a second RunState class. Resolving the
  // bundle the CommonJS way gives both one copy.
  bundlerOptions: {
    webpackConfigHook: (config) => ({
      ...config,
      resolve: {
        ...config.resolve,
        conditionNames: COMMONJS_FIRST,
        byDependency: { ...config.resolve?.byDependency, esm: { conditionNames: COMMONJS_FIRST } },
      },
    }),
  },
});
reportReady({ taskQueue: TASK_QUEUE });
await worker.run();
