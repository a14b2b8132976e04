import { hostname } from 'node:os';
import type { AgentDefinition } from '../define/index.js';
import type { CountersignActivities } from '../workflows/activity-types.js';
import { createCallModel, type ModelSettings } from './call-model.js';
import type { Notifier } from './notifier.js';
import { createRequestApproval } from './request-approval.js';
import type { ContentStore } from '../content-store/content-store.js';
import { createRunTool } from './run-tool.js';
import { createUpdateMessages } from './update-messages.js';
import type { SecretSealer } from '../secrets/sealer.js';

export type { ModelSettings } from './call-model.js';
export type { Notifier } from './notifier.js';

/** The worker's activities: secrets and tool code stay in these closures, never in a history. */
export function createActivities(options: {
  agents: AgentDefinition[];
  model: ModelSettings;
  notifier?: Notifier;
  maxToolOutputBytes?: number;
  contentStore?: ContentStore;
  storeToolOutputsOverBytes?: number;
  /** Named in what a person is shown of an attempt whose outcome is unknown; the SDK's default. */
  identity?: string;
  /** Opens the secrets people supply to tools that declare them. */
  sealer?: SecretSealer;
}): CountersignActivities {
  return {
    callModel: createCallModel(options.model, options.contentStore),
    requestApproval: createRequestApproval(options.notifier),
    updateMessages: createUpdateMessages(options.notifier),
    runTool: createRunTool(options.agents, {
      maxOutputBytes: options.maxToolOutputBytes,
      store: options.contentStore,
      storeOverBytes: options.storeToolOutputsOverBytes,
      worker: options.identity ?? `${process.pid}@${hostname()}`,
      sealer: options.sealer,
    }),
  };
}
