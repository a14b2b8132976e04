import { createHmac } from 'node:crypto';
import { signingKeyId } from './signing-key-id.js';

/**
 * Signature a webhook receiver checks: hex HMAC-SHA256 with the signing secret over
 * `countersign-webhook.v1.<timestamp>.<body>`, sent as `X-Countersign-Signature: sha256=<hex>` beside
 * `X-Countersign-Timestamp` (epoch ms) so a receiver can refuse replays of old deliveries, and
 * `X-Countersign-Key-Id`, the secret's `signingKeyId`.
 */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return (
    'sha256=' +
    createHmac('sha256', secret).update(`countersign-webhook.v1.${timestamp}.${body}`).digest('hex')
  );
}

/**
 * Posts the signed payload to the configured URL and nowhere else: a redirect is not followed (a
 * 307 or 308 would have the signed body sent again, to wherever the receiver, or anyone who took
 * over its address, points), it fails the delivery like any other non-2xx answer.
 */
export async function postWebhook(url: string, secret: string, payload: unknown): Promise<void> {
  const body = JSON.stringify(payload);
  const timestamp = String(Date.now());
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-countersign-timestamp': timestamp,
      'x-countersign-signature': webhookSignature(secret, timestamp, body),
      // Not part of what is signed: a receiver that refuses the signature logs it to see whether the
      // sender holds another secret (an instance set up apart from the others) or is no sender at all.
      'x-countersign-key-id': signingKeyId(secret),
    },
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  // A failure throws so the activity retries; deliveries already made are skipped by the Notifier's progress keys.
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get('location');
    throw new Error(
      `webhook ${url} answered ${response.status} (a redirect${location ? ` to ${location}` : ''}): redirects are not followed with a signed body; set COUNTERSIGN_WEBHOOK_URL to the final address`,
    );
  }
  if (!response.ok) throw new Error(`webhook ${url} answered ${response.status}`);
}
