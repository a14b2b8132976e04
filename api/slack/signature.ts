import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { HttpError } from '../errors.js';

/** How old a signed request may be (either way), as Slack advises: a replay after it is refused. */
export const SLACK_REQUEST_WINDOW_SECONDS = 5 * 60;

/**
 * Why a request is not one Slack signed just now, or undefined when it is: `v0=` and the hex
 * HMAC-SHA256, with the app's signing secret, of `v0:<timestamp>:<the body as sent>`.
 */
export function slackSignatureRefusal(
  signingSecret: string,
  request: { timestamp: string | undefined; signature: string | undefined; body: Buffer },
  nowMs = Date.now(),
): string | undefined {
  const { timestamp, signature, body } = request;
  if (!timestamp || !/^[0-9]{1,12}$/.test(timestamp) || !signature)
    return 'not signed by Slack (X-Slack-Request-Timestamp and X-Slack-Signature)';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_REQUEST_WINDOW_SECONDS)
    return 'its Slack timestamp is more than five minutes away from now';
  const expected = `v0=${createHmac('sha256', signingSecret)
    .update(`v0:${timestamp}:`)
    .update(body)
    .digest('hex')}`;
  const given = Buffer.from(signature);
  const wanted = Buffer.from(expected);
  // The length says nothing about the secret; the bytes are compared in constant time.
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
    return 'its Slack signature does not verify';
  return undefined;
}

/** Before anything reads the request: a 401 for one Slack did not sign, with the body unread. */
export function verifySlackSignature(signingSecret: string): RequestHandler {
  return (req, _res, next) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const refused = slackSignatureRefusal(signingSecret, {
      timestamp: req.get('x-slack-request-timestamp'),
      signature: req.get('x-slack-signature'),
      body,
    });
    if (refused) throw new HttpError(401, `refused: ${refused}`, { code: 'slack_signature_invalid' });
    next();
  };
}
