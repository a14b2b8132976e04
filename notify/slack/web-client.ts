// Types only: nothing of the SDK loads until Slack is configured (see `loadSdk`).
import type { WebClient } from '@slack/web-api';

type Sdk = typeof import('@slack/web-api');
let sdk: Promise<Sdk> | undefined;

/** The SDK, imported on first use: a service that never talks to Slack need not install it. */
function loadSdk(): Promise<Sdk> {
  sdk ??= import('@slack/web-api').catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new Error(
      'Slack needs @slack/web-api, an optional peer dependency of countersign: npm install @slack/web-api',
      { cause: err },
    );
  });
  return sdk;
}

/** Where Slack's Web API is: Slack's own, unless a proxy or a test's fake stands in for it. */
export const SLACK_API_URL = 'https://slack.com/api/';

/**
 * Slack's own client, made to fail fast: no retries and no waiting out a rate limit of its own,
 * since the notifier's activity retries what may yet go through (and a button's answer cannot wait).
 * Methods are called by name only, never at a URL a payload could name.
 */
export function slackWebClient(token: string, apiUrl: string = SLACK_API_URL): () => Promise<WebClient> {
  let client: Promise<WebClient> | undefined;
  return () =>
    (client ??= loadSdk().then(
      ({ WebClient, LogLevel }) =>
        new WebClient(token, {
          slackApiUrl: apiUrl.replace(/\/?$/, '/'),
          retryConfig: { retries: 0 },
          rejectRateLimitedCalls: true,
          timeout: 10_000,
          allowAbsoluteUrls: false,
          logLevel: LogLevel.ERROR,
        }),
    ));
}
