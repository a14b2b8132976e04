import { readFileSync } from 'node:fs';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { fileContentStore } from '../../../content-store/content-store.js';
import { createNotifier } from '../../../notify/notifier.js';
import { createWorker } from '../../../worker/index.js';
import { answerGarbageRequests, reportReady } from '../support/child.js';
import { loadStackSettings } from './settings.js';

// One Countersign worker, as its own process so it can be killed with SIGKILL and restarted.
const settings = await loadStackSettings();
Runtime.install({ logger: new DefaultLogger('WARN') });
const connection = await NativeConnection.connect({ address: settings.temporalAddress });
const worker = await createWorker({
  connection,
  identity: `stack-worker-${process.pid}`,
  agents: settings.agents,
  secretKeys: settings.secretKeys,
  contentStore: settings.contentDir ? fileContentStore(settings.contentDir) : undefined,
  model: { baseUrl: settings.modelUrl, apiKey: 'stack', maxRetries: 10, timeoutMs: 10_000 },
  notifier: settings.notify
    ? createNotifier({
        approvers: settings.approvers,
        signingSecret: settings.signingSecret,
        publicUrl: settings.publicUrl,
        dataDir: settings.dataDir,
        mailFrom: 'Countersign <countersign@localhost>',
      })
    : undefined,
  // Bundled once by the parent: a restart then takes a second, not the bundler's half minute.
  workflowBundle: settings.workflowBundle
    ? { code: readFileSync(settings.workflowBundle, 'utf8') }
    : undefined,
});
answerGarbageRequests();
reportReady({ pid: process.pid });
await worker.run();
