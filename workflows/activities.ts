import { proxyActivities } from '@temporalio/workflow';
import type { CountersignActivities } from './activity-types.js';

/**
 * The model call: the openai client retries 429/5xx itself; Temporal retries what is left. It
 * heartbeats while it waits, so a worker that died mid-call costs seconds, not the ten minutes a
 * slow model is allowed.
 */
export const { callModel } = proxyActivities<CountersignActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});

/**
 * Notifications and the updates of what they posted: retried for a while (a Slack outage only
 * delays them); the approval is visible in the inbox whatever happens to them.
 */
export const NOTIFY_ACTIVITY = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 8,
  },
} as const;

export const { requestApproval } = proxyActivities<CountersignActivities>(NOTIFY_ACTIVITY);

/** One attempt of a tool: how long it may run, and how soon one that went silent is given up on. */
export const TOOL_ATTEMPT = { startToCloseTimeout: '30 minutes', heartbeatTimeout: '10 seconds' } as const;

/** Temporal's retries of a tool that dedupes: 1 s apart, doubling, at most 30 s. */
export const toolRetry = (maximumAttempts: number) => ({
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts,
});

/**
 * Tools heartbeat while they run, so a crashed worker's attempt is retried within seconds; the retry
 * carries the same idempotency key.
 */
export const { runTool } = proxyActivities<CountersignActivities>({ ...TOOL_ATTEMPT, retry: toolRetry(3) });
