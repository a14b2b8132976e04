import type { DeliveryProgress, Notifier } from '../activities/notifier.js';
import type { ApprovalView, ApproverIdentity } from '../protocol/index.js';
import type { ReminderNote } from '../workflows/activity-types.js';
import { renderApprovalEmail } from './email.js';
import { signLink, type LinkAction } from './links.js';
import { SlackRefused } from './slack/failures.js';
import type { SlackNotifierOptions } from './slack/options.js';
import { slackPoster } from './slack/post-approval.js';
import { slackUpdater } from './slack/update-messages.js';
import { createMailTransport, type MailTransport } from './transport.js';
import { postWebhook } from './webhook.js';

/**
 * What `createNotifier` needs: who may be told (ids, emails, roles), how links are signed and where
 * they lead, and how mail is sent.
 *
 * @example
 * ```ts
 * import { createNotifier, type NotifierOptions } from 'countersign/worker';
 *
 * const options: NotifierOptions = {
 *   approvers: [{ id: 'lee', email: 'lee@example.com', roles: ['support-lead'] }],
 *   signingSecret: process.env.LINK_SECRET!,
 *   publicUrl: 'https://ops.example.com/approvals',
 *   dataDir: '/var/lib/countersign',
 *   mailFrom: 'Approvals <approvals@example.com>',
 *   webhookUrl: 'https://hooks.example.com/countersign',
 * };
 * const notifier = createNotifier(options);
 * ```
 */
export interface NotifierOptions {
  /** Everyone who may be emailed: those whose roles may decide an approval get it. */
  approvers: ApproverIdentity[];
  /** The router's `signingSecret`, so the links signed here verify there. */
  signingSecret: string;
  /** Base URL of the API and inbox, used in links. */
  publicUrl: string;
  /** Where mail goes as `.eml` files (`<dataDir>/outbox/`) when there is no `smtpUrl`. */
  dataDir: string;
  smtpUrl?: string;
  mailFrom: string;
  /** Also POSTs each approval here, signed with `signingSecret`. */
  webhookUrl?: string;
  /** Also posts each approval to Slack, with buttons that decide (the router's `slack` option). */
  slack?: SlackNotifierOptions;
}

/** Approvers who may decide this approval and have not signed it already. */
export function recipientsFor(approval: ApprovalView, approvers: ApproverIdentity[]): ApproverIdentity[] {
  const signed = new Set(approval.approvals.map((s) => s.approver));
  return approvers.filter(
    (a) =>
      a.roles.some((role) => approval.approvers.includes(role)) &&
      !signed.has(a.id) &&
      (approval.allowSelfApproval || a.id !== approval.requester),
  );
}

/** The keys' round: `initial`, `r<revision>` after an edit or escalation, `remind<n>` (`r<revision>-remind<n>`). */
function roundOf(approval: ApprovalView, reminder: ReminderNote | undefined): string {
  if (!reminder) return approval.revision === 1 ? 'initial' : `r${approval.revision}`;
  const remind = `remind${reminder.number}`;
  return approval.revision === 1 ? remind : `r${approval.revision}-${remind}`;
}

export function inboxUrl(publicUrl: string, trackingId: string): string {
  return `${publicUrl.replace(/\/$/, '')}/#/approvals/${encodeURIComponent(trackingId)}`;
}

/**
 * Why a delivery can never succeed, or undefined when trying again may: an SMTP server's permanent
 * answer (5xx: no such mailbox, a refused sender) is given again to every retry.
 */
function refusedForGood(err: unknown): string | undefined {
  if (err instanceof SlackRefused) return err.message;
  const code = (err as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600 ? describeFailure(err) : undefined;
}

/**
 * What failed, in a line, for logs and the activity's failure (which the run's history keeps):
 * URLs are left out, as a webhook's or an SMTP server's may hold a credential.
 */
function describeFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const { code } = err as { code?: unknown };
  const text = message.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>').slice(0, 200);
  return typeof code === 'string' ? `${code}: ${text}` : text;
}

/**
 * Each delivery on its own, marked sent or failed for good by its key, so one that fails holds back
 * none after it; `finish` throws for those that may yet go through, and the activity retries them.
 */
function deliveries(progress: DeliveryProgress) {
  const retry: string[] = [];
  return {
    async deliver(key: string, send: () => Promise<void>) {
      try {
        await send();
        progress.onSent(key);
      } catch (err) {
        const refused = refusedForGood(err);
        if (refused) progress.onFailed(key, refused);
        else retry.push(`${key} (${describeFailure(err)})`);
      }
    },
    finish() {
      if (retry.length > 0) throw new Error(`notifications to retry: ${retry.join(', ')}`);
    },
  };
}

/**
 * The notifier `createNotifier` returns: a `Notifier` for `createWorker`, and `close()` to let its
 * SMTP connections go when the worker stops.
 *
 * @example
 * ```ts
 * import { createNotifier, createWorker, type CountersignNotifier } from 'countersign/worker';
 *
 * const notifier: CountersignNotifier = createNotifier(options);
 * const worker = await createWorker({ connection, agents: [support], model, notifier });
 * await worker.run();
 * notifier.close();
 * ```
 */
export interface CountersignNotifier extends Notifier {
  close(): void;
}

/**
 * Email (SMTP, or `.eml` files in `dataDir/outbox` without one) to every approver who may decide,
 * with signed links to approve or reject, plus an optional signed webhook. Pass it to `createWorker`.
 *
 * @example
 * ```ts
 * const notifier = createNotifier({
 *   approvers: directory, // ids, emails and roles
 *   signingSecret: process.env.LINK_SECRET!, // the router's secret, so the links verify
 *   publicUrl: 'https://ops.example.com/approvals',
 *   dataDir: '/var/lib/countersign',
 *   smtpUrl: 'smtp://mail.example.com:587',
 *   mailFrom: 'Approvals <approvals@example.com>',
 * });
 * ```
 */
export function createNotifier(options: NotifierOptions): CountersignNotifier {
  const mail: MailTransport = createMailTransport({ smtpUrl: options.smtpUrl, dataDir: options.dataDir });
  const base = options.publicUrl.replace(/\/$/, '');
  const expiresAt = (approval: ApprovalView) => Date.parse(approval.deadline);
  const inbox = (trackingId: string) => inboxUrl(base, trackingId);
  const slack = options.slack && slackPoster(options.slack, inbox);
  const slackCards = options.slack && slackUpdater(options.slack, inbox);
  const link = (approval: ApprovalView, approver: ApproverIdentity, action: LinkAction) =>
    `${base}/links/${signLink(options.signingSecret, { trackingId: approval.trackingId, approverId: approver.id, action, expiresAt: expiresAt(approval), revision: approval.revision })}`;

  return {
    async notify(approval, progress, edit, reminder) {
      // Each revision (an edit, an escalation) notifies again under new keys, with links for it, and
      // so does each reminder; retries of one activity skip what was sent, or failed for good.
      const round = roundOf(approval, reminder);
      const { deliver, finish } = deliveries(progress);
      const recipients = recipientsFor(approval, options.approvers);
      for (const approver of recipients) {
        const key = `email:${round}:${approver.id}`;
        if (!approver.email || progress.sent.includes(key)) continue;
        // A secret is never supplied, nor refused, through a link: none is signed for one.
        const links = approval.kind !== 'secret';
        const rendered = renderApprovalEmail(approval, approver, {
          approve:
            links && approval.allowedDecisions.includes('approve')
              ? link(approval, approver, 'approve')
              : undefined,
          reject:
            links && approval.allowedDecisions.includes('reject')
              ? link(approval, approver, 'reject')
              : undefined,
          inbox: inboxUrl(base, approval.trackingId),
          ...(reminder ? { reminder: true } : {}),
        });
        const to = approver.email;
        await deliver(key, () =>
          mail.send({
            from: options.mailFrom,
            to,
            ...rendered,
            fileKey:
              round === 'initial'
                ? `${approval.trackingId}-${approver.id}`
                : `${approval.trackingId}-${round}-${approver.id}`,
          }),
        );
      }
      const webhookKey = `webhook:${round}`;
      const webhookUrl = options.webhookUrl;
      if (webhookUrl && !progress.sent.includes(webhookKey)) {
        await deliver(webhookKey, () =>
          postWebhook(webhookUrl, options.signingSecret, {
            type: 'approval.requested',
            approval,
            ...(reminder ? { reminder } : {}),
            inboxUrl: inboxUrl(base, approval.trackingId),
          }),
        );
      }
      // Last: Slack down holds back no email or webhook.
      if (slack)
        await slack(
          approval,
          recipients,
          (key) => progress.sent.includes(key),
          round,
          deliver,
          (message) => progress.onPosted(message),
          reminder ? undefined : edit,
          reminder !== undefined,
        );
      // The activity retries what may yet go through; the next attempt skips what is done.
      finish();
    },
    async update(update, progress) {
      if (!slackCards) return;
      const { deliver, finish } = deliveries(progress);
      await slackCards(update, (key) => progress.sent.includes(key), deliver);
      finish();
    },
    close: () => mail.close(),
  };
}
