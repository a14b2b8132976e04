import { createHash } from 'node:crypto';
import type { ApprovalView, ApproverIdentity, Decision } from '../../protocol/index.js';
import { parseTrackingId } from '../../protocol/index.js';
import { inboxUrl } from '../../notify/notifier.js';
import {
  ButtonValue,
  SLACK_ACTIONS,
  approvalCard,
  settledCard,
  type SlackMessage,
} from '../../notify/slack/card.js';
import { slackWebClient } from '../../notify/slack/web-client.js';
import type { ApiOptions } from '../context.js';
import { decide, refusal } from '../decide.js';
import { HttpError } from '../errors.js';
import { readApproval } from '../runs/run-reads.js';
import { approverOfSlackUser, approversFileLookup, slackUser } from './find-approver.js';
import type { SlackRouterOptions } from './options.js';
import { isBlockActions, isViewSubmission, type Interaction } from './payloads.js';
import { REJECT_CALLBACK, readRejection, rejectModal } from './reject-modal.js';

type SlackClicker = { id: string; team_id?: string };

/** Answers through a message's `response_url`: to the clicker alone, or in place of the message. */
async function respond(url: string | undefined, body: Record<string, unknown>): Promise<void> {
  if (!url) return;
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    redirect: 'error',
    signal: AbortSignal.timeout(10_000),
  });
  if (!answer.ok) throw new Error(`Slack's response_url answered ${answer.status}`);
}

const tell = (url: string | undefined, text: string) =>
  respond(url, { response_type: 'ephemeral', replace_original: false, text });
const replace = (url: string | undefined, message: SlackMessage) =>
  respond(url, { replace_original: true, ...message });

/** One click is one request: Slack delivering it twice decides once (the run remembers request ids). */
function requestIdOf(...parts: string[]): string {
  return `slack-${createHash('sha256').update(parts.join('\0')).digest('base64url')}`;
}

function buttonOf(value: string | undefined): ButtonValue | undefined {
  try {
    const parsed = ButtonValue.safeParse(JSON.parse(value ?? ''));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** What failed, for the log: no URL (a response_url is a credential for its message). */
function describe(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>').slice(0, 300);
}

/**
 * What a Slack interaction does, once Slack has been answered: the clicker is mapped to an
 * approver, and Approve (or Reject, from its modal) decides through `decide`, the rules every
 * channel goes through. Whatever refuses it is said to the clicker alone.
 */
export function slackInteractions(
  options: ApiOptions,
  slack: SlackRouterOptions,
): (interaction: Interaction) => Promise<void> {
  const web = slackWebClient(slack.botToken, slack.apiUrl);
  const find = slack.findApprover ?? approversFileLookup(options.approvers ?? []);
  const inbox = (trackingId: string) => inboxUrl(options.publicUrl, trackingId);
  const deps = {
    client: options.client,
    agents: options.agents,
    waitMs: options.decisionWaitMs ?? 5_000,
    sealer: options.sealer,
  };

  async function approverOf(user: SlackClicker, responseUrl: string | undefined) {
    let approver: ApproverIdentity | undefined;
    try {
      approver = await approverOfSlackUser(find, slackUser(web, user));
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      await tell(responseUrl, `Not decided: ${err.message}`);
      return undefined;
    }
    if (!approver)
      await tell(
        responseUrl,
        `Not decided: your Slack account (${user.id}) is not one of this service's approvers. Whoever runs Countersign can add your Slack id (slackId) or your Slack email to an approver.`,
      );
    return approver;
  }

  /** The message as the approval is now: its buttons while it waits, how it ended once settled. */
  async function follow(responseUrl: string | undefined, trackingId: string, approver: string) {
    const runId = parseTrackingId(trackingId)?.runId;
    const now: ApprovalView | null = runId
      ? await readApproval(options.client, runId, trackingId, options.workerWaitMs).catch(() => null)
      : null;
    if (!now) return;
    await replace(
      responseUrl,
      now.status === 'pending'
        ? approvalCard(now, inbox(trackingId))
        : settledCard(now, inbox(trackingId), { approver, channel: 'slack' }),
    );
  }

  async function decideAs(
    user: SlackClicker,
    button: ButtonValue,
    decision: Decision,
    requestId: string,
    responseUrl: string | undefined,
  ): Promise<void> {
    const approver = await approverOf(user, responseUrl);
    if (!approver) return;
    let outcome;
    try {
      ({ outcome } = await decide(deps, {
        trackingId: button.trackingId,
        decision,
        approver,
        channel: 'slack',
        requestId,
        idempotent: false,
        revision: button.revision,
      }));
    } catch (err) {
      if (!(err instanceof HttpError) || err.status >= 500) throw err;
      await tell(responseUrl, `Not decided: ${err.message}`);
      return;
    }
    if (!outcome) {
      await tell(
        responseUrl,
        'Sent: the run has not taken your decision yet (its worker may be down). It will when it is back, and the inbox shows it.',
      );
      return;
    }
    if (!outcome.accepted) {
      await tell(responseUrl, `Not decided: ${refusal(outcome).message}`);
      return;
    }
    await follow(responseUrl, button.trackingId, approver.id);
    if (outcome.status === 'pending')
      await tell(
        responseUrl,
        `Your approval counts: ${outcome.approvals} of ${outcome.requiredApprovals} so far. The call runs once enough people approve.`,
      );
  }

  async function onClick(interaction: Extract<Interaction, { type: 'block_actions' }>): Promise<void> {
    const action = interaction.actions[0]!;
    const responseUrl = interaction.response_url;
    if (action.action_id !== SLACK_ACTIONS.approve && action.action_id !== SLACK_ACTIONS.reject) return;
    const button = buttonOf(action.value);
    if (!button) return;
    if (action.action_id === SLACK_ACTIONS.approve) {
      const id = requestIdOf('approve', interaction.user.id, interaction.trigger_id, button.trackingId);
      await decideAs(interaction.user, button, { type: 'approve' }, id, responseUrl);
      return;
    }
    // Someone who is no approver is told at once, rather than after typing a reason.
    if (!(await approverOf(interaction.user, responseUrl))) return;
    const client = await web();
    await client.views
      .open({ trigger_id: interaction.trigger_id, view: rejectModal(button, responseUrl) })
      .catch(async (err: unknown) => {
        console.error('countersign slack: the reject form did not open:', describe(err));
        await tell(responseUrl, 'Slack did not open the form to reject in time: click Reject again.');
      });
  }

  async function onSubmit(interaction: Extract<Interaction, { type: 'view_submission' }>): Promise<void> {
    if (interaction.view.callback_id !== REJECT_CALLBACK) return;
    const rejection = readRejection(interaction.view);
    if (!rejection) return;
    const { context, message } = rejection;
    const id = requestIdOf('reject', interaction.user.id, interaction.view.id, context.trackingId);
    const decision: Decision = { type: 'reject', ...(message ? { message } : {}) };
    await decideAs(interaction.user, context, decision, id, context.responseUrl);
  }

  return async (interaction) => {
    const responseUrl = isBlockActions(interaction)
      ? interaction.response_url
      : isViewSubmission(interaction)
        ? readRejection(interaction.view)?.context.responseUrl
        : undefined;
    try {
      if (isBlockActions(interaction)) await onClick(interaction);
      else if (isViewSubmission(interaction)) await onSubmit(interaction);
    } catch (err) {
      console.error('countersign slack: an interaction failed:', describe(err));
      await tell(
        responseUrl,
        'Not decided: Countersign could not reach the run just now. Try again, or decide in the inbox.',
      ).catch(() => undefined);
    }
  };
}
