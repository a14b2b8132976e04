import { createHash } from 'node:crypto';
import { msDuration } from '../time.js';

/**
 * Every namespace name is accepted and exists implicitly (there is no RegisterNamespace
 * step); its id is derived from its name so it is stable across restarts.
 */
export function namespaceId(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function describeNamespace(name: string): object {
  return {
    namespaceInfo: {
      name,
      state: 1,
      description: 'devserver namespace',
      id: namespaceId(name),
      // Only what the devserver implements; see the protocol notes on workerHeartbeats etc.
      capabilities: {
        eagerWorkflowStart: false,
        syncUpdate: true,
        asyncUpdate: true,
        workerHeartbeats: false,
        workerPollCompleteOnShutdown: false,
      },
      supportsSchedules: false,
    },
    config: {
      workflowExecutionRetentionTtl: msDuration(7 * 24 * 3600 * 1000),
      historyArchivalState: 2,
      visibilityArchivalState: 2,
    },
    replicationConfig: { activeClusterName: 'active', clusters: [{ clusterName: 'active' }], state: 1 },
    isGlobalNamespace: false,
  };
}
