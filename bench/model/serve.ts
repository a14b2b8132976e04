import { serveChatCompletions } from '../../model-server/chat-completions-server.js';
import { reportReady } from '../../test/faults/support/child.js';
import { scenarioModel } from './scenario-model.js';

// The fake model runs in a process of its own so its CPU is not charged to any system.
const server = await serveChatCompletions(scenarioModel, { port: Number(process.env.PORT ?? 0) });
reportReady({ url: server.url });
