import { randomUUID } from 'node:crypto';
import express, { Router, type Response } from 'express';
import { z } from 'zod';
import { channelRefusal } from '../../protocol/decision-rules.js';
import { parseTrackingId, type ApprovalView, type ApproverIdentity } from '../../protocol/index.js';
import { verifyLink, type LinkClaims } from '../../notify/links.js';
import { inboxUrl } from '../../notify/notifier.js';
import type { ApiOptions } from '../context.js';
import { decide, refusal } from '../decide.js';
import { HttpError } from '../errors.js';
import { confirmPage, decidedPage, messagePage, secretLinkPage, settledPage } from '../link-pages.js';
import { LOCAL_TIME_SCRIPT_SOURCE } from '../page-time.js';
import { warnSigningMismatch } from '../signing-mismatch.js';
import { readApproval } from '../runs/run-reads.js';
import { getRunEvents } from '../../client/index.js';

const Form = z.object({ message: z.string().max(4_000).optional() });

function show(res: Response, status: number, html: string): void {
  res.status(status).type('html').send(html);
}

/**
 * Email links. GET only shows a confirmation page (mail scanners open links); POST decides. A link
 * is single-use because the workflow takes each link nonce once, not because of a table here.
 */
export function linksRouter(options: ApiOptions): Router {
  const router = Router();
  const inbox = (trackingId?: string) =>
    trackingId ? inboxUrl(options.publicUrl, trackingId) : options.publicUrl;

  router.use((_req, res, next) => {
    // The token is in the URL: keep it out of referrers, caches and search engines.
    res.set({
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      'X-Robots-Tag': 'noindex',
      'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; script-src ${LOCAL_TIME_SCRIPT_SOURCE}; form-action 'self'; frame-ancestors 'none'`,
    });
    next();
  });

  /** The page of an approval already decided: by whom, through which channel, when. */
  async function showSettled(res: Response, approval: ApprovalView): Promise<void> {
    const events = await getRunEvents(options.client, approval.runId, 0).catch(() => []);
    show(res, 409, settledPage(approval, events, inbox(approval.trackingId)));
  }

  /** The link's claims and its approver, or a page saying why the link is refused. */
  async function check(
    token: string,
    res: Response,
  ): Promise<{ claims: LinkClaims; approver: ApproverIdentity } | undefined> {
    const result = verifyLink(options.signingSecret, token);
    if (!result.ok) {
      if (result.reason === 'expired') {
        show(
          res,
          410,
          messagePage(
            'This link has expired',
            'The approval it was for has passed its deadline. Nothing was changed.',
            inbox(result.claims?.trackingId),
          ),
        );
      } else if (result.reason === 'other_secret') {
        // A misconfiguration far more often than an attack: the person is told whom to ask, the
        // operator which setting differs. The key id is unverified and the link decides nothing.
        warnSigningMismatch('an email link', result.signerKeyId, result.keyId);
        show(
          res,
          400,
          messagePage(
            'This link cannot be checked here',
            'This link was signed by a Countersign instance with another signing secret, so this one cannot ' +
              'tell it from a forged link. Nothing was changed. Ask whoever runs Countersign to give every ' +
              'instance the same signing secret (error code signing_secret_mismatch); meanwhile you can ' +
              'decide in the inbox.',
            inbox(),
          ),
        );
      } else {
        show(
          res,
          400,
          messagePage(
            'This link is not valid',
            'It may have been altered or copied incompletely. Nothing was changed.',
            inbox(),
          ),
        );
      }
      return undefined;
    }
    const approver = await options.findApprover(result.claims.approverId);
    if (!approver) {
      show(
        res,
        403,
        messagePage(
          'This link is no longer valid',
          'Its approver is no longer configured. Nothing was changed.',
          inbox(),
        ),
      );
      return undefined;
    }
    return { claims: result.claims, approver };
  }

  router.get('/:token', async (req, res) => {
    const checked = await check(req.params.token, res);
    if (!checked) return;
    const { claims, approver } = checked;
    const parsed = parseTrackingId(claims.trackingId);
    const approval = parsed
      ? await readApproval(options.client, parsed.runId, claims.trackingId).catch(() => null)
      : null;
    if (!approval) return show(res, 404, messagePage('Approval not found', 'Nothing was changed.', inbox()));
    // A secret has no decision links, whatever this one says: the inbox or the CLI supplies it.
    if (channelRefusal(approval.kind, 'email', true))
      return show(res, 403, secretLinkPage(approval, inbox(claims.trackingId)));
    if (approval.status !== 'pending') return showSettled(res, approval);
    if (claims.revision !== approval.revision) {
      // The email showed another proposal: say what changed, and offer nothing that acts on it.
      const events = await getRunEvents(options.client, parsed!.runId, 0).catch(() => []);
      const changes = events
        .filter((e) => e.trackingId === claims.trackingId && e.decision === 'edit' && e.diff)
        .flatMap((e) => e.diff!)
        .map((c) => `${c.path}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}`);
      return show(
        res,
        409,
        messagePage(
          'This proposal has changed',
          `It was changed after this email was sent (revision ${claims.revision ?? 1} → ${approval.revision})` +
            `${changes.length ? `: ${changes.join('; ')}` : ''}. Nothing was changed. ` +
            'A new email with links for the current proposal goes to everyone still needed; or open it in the inbox.',
          inbox(claims.trackingId),
        ),
      );
    }
    if (approval.approvals.some((s) => s.approver === approver.id)) {
      return show(
        res,
        409,
        messagePage(
          'You have already approved this',
          'It is waiting for other approvers. Nothing was changed.',
          inbox(claims.trackingId),
        ),
      );
    }
    show(
      res,
      200,
      confirmPage(approval, claims.action, approver.name ?? approver.id, inbox(claims.trackingId)),
    );
  });

  router.post('/:token', express.urlencoded({ extended: false, limit: '16kb' }), async (req, res) => {
    const checked = await check(req.params.token, res);
    if (!checked) return;
    const { claims, approver } = checked;
    const form = Form.safeParse(req.body ?? {});
    const message = form.success && form.data.message?.trim() ? form.data.message.trim() : undefined;
    const decision =
      claims.action === 'approve' ? { type: 'approve' as const } : { type: 'reject' as const, message };
    try {
      const { outcome, approval } = await decide(
        { client: options.client, agents: options.agents, waitMs: options.decisionWaitMs ?? 5_000 },
        {
          trackingId: claims.trackingId,
          decision,
          approver,
          channel: 'email',
          requestId: `link-${randomUUID()}`,
          idempotent: false,
          linkNonce: claims.nonce,
          revision: claims.revision,
        },
      );
      if (!outcome) {
        return show(
          res,
          202,
          messagePage(
            'Decision sent',
            'The run will take it in a moment; the inbox shows the result.',
            inbox(claims.trackingId),
          ),
        );
      }
      if (!outcome.accepted) throw refusal(outcome);
      show(res, 200, decidedPage(approval?.kind, claims.action, outcome, inbox(claims.trackingId)));
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      const secret = err.details.secretApproval;
      if (secret) return show(res, err.status, secretLinkPage(secret, inbox(claims.trackingId)));
      if (err.details.code === 'already_settled') {
        const parsed = parseTrackingId(claims.trackingId);
        const settled = parsed
          ? await readApproval(options.client, parsed.runId, claims.trackingId).catch(() => null)
          : null;
        if (settled && settled.status !== 'pending') return showSettled(res, settled);
      }
      const title =
        err.details.code === 'link_used' ? 'This link has already been used' : 'Nothing was changed';
      show(res, err.status, messagePage(title, err.message, inbox(claims.trackingId)));
    }
  });

  return router;
}
