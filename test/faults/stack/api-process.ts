import { Client, Connection } from '@temporalio/client';
import express from 'express';
import { countersignChat } from '../../../api/chat/chat-router.js';
import type { CountersignApiOptions } from '../../../api/context.js';
import { countersignRouter } from '../../../api/create-api.js';
import { listen } from '../../../api/listen.js';
import { registerSearchAttributes } from '../../../client/index.js';
import { fileContentStore } from '../../../content-store/content-store.js';
import { DEFAULT_TASK_QUEUE } from '../../../protocol/index.js';
import { answerGarbageRequests, reportReady } from '../support/child.js';
import { loadStackSettings } from './settings.js';

// One API instance, as its own process so it can be killed with SIGKILL and restarted.
const settings = await loadStackSettings();
const connection = await Connection.connect({ address: settings.temporalAddress });
await registerSearchAttributes(connection, 'default');
const options: CountersignApiOptions = {
  client: new Client({ connection, namespace: 'default' }),
  namespace: 'default',
  taskQueue: DEFAULT_TASK_QUEUE,
  agents: settings.agents,
  approvers: settings.approvers,
  signingSecret: settings.signingSecret,
  publicUrl: settings.publicUrl,
  defaultModel: 'stack-model',
  decisionWaitMs: settings.decisionWaitMs,
  secretKeys: settings.secretKeys,
  contentStore: settings.contentDir ? fileContentStore(settings.contentDir) : undefined,
  // The benches' one reviewer token stands for a crowd: it follows every run of a batch at once.
  eventStreams: { perCaller: 1000 },
};
const app = express();
app.disable('x-powered-by');
// A chat front end's endpoint on the same instance, talking to the stack's first agent.
app.use('/chat', countersignChat({ ...options, agent: settings.agents[0]!.name }));
app.use(countersignRouter(options));
const { url } = await listen(app, settings.port);
answerGarbageRequests();
reportReady({ url });
