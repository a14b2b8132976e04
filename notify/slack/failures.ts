/**
 * A Slack delivery that can never go through as asked: the notifier logs it and does not try it
 * again (an approver with no Slack account is still reached by the other channels).
 */
export class SlackRefused extends Error {
  override readonly name = 'SlackRefused';
}

/** Slack's errors that a later call may not get: everything else it answers again to every retry. */
const PASSING = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/**
 * The Slack error Slack's client threw (a platform error carries Slack's own code: `users_not_found`,
 * `channel_not_found`, `invalid_auth`...), or undefined for a failure on the way (the network, a 5xx,
 * a rate limit).
 */
export function slackErrorCode(err: unknown): string | undefined {
  const { code, data } = (err ?? {}) as { code?: unknown; data?: { error?: unknown } };
  return code === 'slack_webapi_platform_error' && typeof data?.error === 'string' ? data.error : undefined;
}

/** Runs a Slack call, turning Slack's lasting refusals into `SlackRefused`; others are thrown as they are. */
export async function refusedForGood<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const code = slackErrorCode(err);
    if (code !== undefined && !PASSING.has(code)) throw new SlackRefused(`Slack refused ${what}: ${code}`);
    throw err;
  }
}
