import { createHash } from 'node:crypto';
import type {
  ApprovalView,
  ApproverIdentity,
  Decision,
  DecisionOutcome,
  FieldError,
} from '../../protocol/index.js';
import { parseTrackingId, requirementLines, visibleText } from '../../protocol/index.js';
import {
  channelRefusal,
  decisionTypeRefusal,
  roleRefusal,
  settledRefusal,
  staleRevisionRefusal,
} from '../../protocol/decision-rules.js';
import { unmeetableRequirements } from '../../protocol/unmeetable.js';
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
import { checkDecision } from '../edit-validation.js';
import { HttpError } from '../errors.js';
import { readApproval, readPendingFromMemo } from '../runs/run-reads.js';
import { isWorkerNotAnswering } from '../runs/worker-wait.js';
import { EDIT_CALLBACK, editModal, modalErrors, readEdit } from './edit-modal.js';
import { approverOfSlackUser, approversFileLookup, slackUser } from './find-approver.js';
import { readModalContext, type ModalContext } from './modal-context.js';
import type { SlackRouterOptions } from './options.js';
import {
  isBlockActions,
  isViewSubmission,
  type BlockActions,
  type Interaction,
  type ViewSubmission,
} from './payloads.js';
import { REJECT_CALLBACK, readRejection, rejectModal } from './reject-modal.js';

type SlackClicker = { id: string; team_id?: string };

/**
 * What the endpoint answers Slack (nothing, or a modal's errors to show in it), and what it does
 * once Slack has its answer: Slack waits 3 seconds at most, a decision may take longer.
 */
export interface SlackAcknowledgement {
  answer?: Record<string, unknown>;
  after(): Promise<void>;
}

/**
 * How long an edit's form may wait on the run: Slack's trigger to open it lasts 3 seconds, and it
 * waits 3 seconds for the answer to its submission.
 */
const OPEN_WAIT_MS = 2_000;
const SUBMIT_WAIT_MS = 2_000;

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

/** Text from the run inside Slack's markup: no link, mention or `@channel` can be forged with it. */
const escaped = (text: string) =>
  visibleText(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A refusal as the clicker reads it, with the fields it names. */
function refused(reason: string, fields: FieldError[] | undefined): string {
  const where = (fields ?? []).map((f) => `${f.path || 'arguments'}: ${f.message}`);
  return escaped(`Not decided: ${reason}${where.length > 0 ? ` (${where.join('; ')})` : ''}`);
}

/** What failed, for the log: no URL (a response_url is a credential for its message). */
function describe(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>').slice(0, 300);
}

/**
 * What a Slack interaction does: the clicker is mapped to an approver, and Approve (or Reject or
 * Edit, from its modal) decides through `decide`, the rules every channel goes through, once Slack
 * has been answered. Whatever refuses it is said to the clicker alone. An edit's values are checked
 * before Slack is answered, so an invalid one is shown in its form.
 */
export function slackInteractions(
  options: ApiOptions,
  slack: SlackRouterOptions,
): (interaction: Interaction) => Promise<SlackAcknowledgement> {
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
  async function follow(
    responseUrl: string | undefined,
    trackingId: string,
    approver: string,
  ): Promise<ApprovalView | null> {
    const runId = parseTrackingId(trackingId)?.runId;
    const now: ApprovalView | null = runId
      ? await readApproval(options.client, runId, trackingId, options.workerWaitMs).catch(() => null)
      : null;
    if (!now) return null;
    await replace(
      responseUrl,
      now.status === 'pending'
        ? approvalCard(now, inbox(trackingId))
        : settledCard(now, inbox(trackingId), { approver, channel: 'slack' }),
    );
    return now;
  }

  /**
   * An edit still waiting: on its new revision, with what it needs now in the rule words (an edit
   * into a stricter tier adds that tier's requirement), and any that the approvers who exist cannot
   * meet, as the inbox and the CLI warn of them.
   */
  function editedText(now: ApprovalView | null, outcome: DecisionOutcome): string {
    const head = `Edited: the call is now revision ${outcome.revision ?? now?.revision}, signed by you where your roles count.`;
    if (!now) return `${head} It needs more approvals: the inbox shows whose.`;
    const needs = requirementLines(now).map((line) => `• ${line}`);
    const warnings = options.approvers
      ? unmeetableRequirements(now.requirements, options.approvers, now).map((w) => `Warning: ${w}.`)
      : [];
    return escaped([head, 'Still needed:', ...needs, ...warnings].join('\n'));
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
      await tell(responseUrl, refused(err.message, err.details.fields));
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
      await tell(responseUrl, refused(refusal(outcome).message, outcome.fieldErrors));
      return;
    }
    const now = await follow(responseUrl, button.trackingId, approver.id);
    if (outcome.status === 'pending' && decision.type === 'edit')
      await tell(responseUrl, editedText(now, outcome));
    else if (outcome.status === 'pending')
      await tell(
        responseUrl,
        `Your approval counts: ${outcome.approvals} of ${outcome.requiredApprovals} so far. The call runs once enough people approve.`,
      );
  }

  /** Opens a modal while the click's trigger lasts (3 seconds); when Slack did not, says so. */
  async function openModal(
    interaction: BlockActions,
    view: ReturnType<typeof rejectModal> | NonNullable<ReturnType<typeof editModal>>,
    what: 'Reject' | 'Edit',
  ): Promise<void> {
    const client = await web();
    await client.views.open({ trigger_id: interaction.trigger_id, view }).catch(async (err: unknown) => {
      console.error(`countersign slack: the ${what} form did not open:`, describe(err));
      await tell(
        interaction.response_url,
        `Slack did not open the form to ${what.toLowerCase()} in time: click ${what} again.`,
      );
    });
  }

  /**
   * Edit opens a form of the call as it is now, for an approver who may edit it: what would refuse
   * the edit at once (settled, another revision, no role) is said instead, by the rules `decide`
   * applies again when the form is sent.
   */
  async function openEdit(interaction: BlockActions, button: ButtonValue): Promise<void> {
    const responseUrl = interaction.response_url;
    const approver = await approverOf(interaction.user, responseUrl);
    if (!approver) return;
    const runId = parseTrackingId(button.trackingId)?.runId;
    const wait = Math.min(options.workerWaitMs ?? OPEN_WAIT_MS, OPEN_WAIT_MS);
    let approval: ApprovalView | null;
    try {
      approval = runId ? await readApproval(options.client, runId, button.trackingId, wait) : null;
    } catch (err) {
      if (isWorkerNotAnswering(err)) {
        await tell(
          responseUrl,
          `The run did not answer in time to open the form (its worker may be down): click Edit again, or edit in the inbox: ${inbox(button.trackingId)}`,
        );
        return;
      }
      if (!(err instanceof HttpError) || err.status !== 404) throw err;
      approval = null;
    }
    if (!approval) {
      await tell(responseUrl, refused(`no approval ${button.trackingId}`, undefined));
      return;
    }
    const rule =
      channelRefusal(approval.kind, 'slack', false) ??
      settledRefusal(approval) ??
      staleRevisionRefusal(approval, button.revision) ??
      roleRefusal(approval, approver.roles) ??
      decisionTypeRefusal(approval, 'edit');
    if (rule) {
      await tell(responseUrl, refused(rule.reason, undefined));
      return;
    }
    const modal = approval.kind === 'call' ? editModal(approval, button, responseUrl) : undefined;
    if (!modal) {
      await tell(responseUrl, `This is edited in the inbox, not in Slack: ${inbox(button.trackingId)}`);
      return;
    }
    await openModal(interaction, modal, 'Edit');
  }

  async function onClick(interaction: BlockActions): Promise<void> {
    const action = interaction.actions[0]!;
    const responseUrl = interaction.response_url;
    const button = buttonOf(action.value);
    if (!button) return;
    if (action.action_id === SLACK_ACTIONS.approve) {
      const id = requestIdOf('approve', interaction.user.id, interaction.trigger_id, button.trackingId);
      await decideAs(interaction.user, button, { type: 'approve' }, id, responseUrl);
    } else if (action.action_id === SLACK_ACTIONS.edit) {
      await openEdit(interaction, button);
    } else if (action.action_id === SLACK_ACTIONS.reject) {
      // Someone who is no approver is told at once, rather than after typing a reason.
      if (!(await approverOf(interaction.user, responseUrl))) return;
      await openModal(interaction, rejectModal(button, responseUrl), 'Reject');
    }
  }

  async function onReject(interaction: ViewSubmission): Promise<void> {
    const rejection = readRejection(interaction.view);
    if (!rejection) return;
    const { context, message } = rejection;
    const id = requestIdOf('reject', interaction.user.id, interaction.view.id, context.trackingId);
    const decision: Decision = { type: 'reject', ...(message ? { message } : {}) };
    await decideAs(interaction.user, context, decision, id, context.responseUrl);
  }

  /**
   * A sent edit, checked before Slack is answered as every channel's edit is (`checkDecision`: the
   * tool's schema, its editable fields): field errors are shown in the form, which stays open. The
   * rest (who, which revision, the policy's re-check) is for `decide` and the run, after.
   */
  async function checkEdit(
    view: ViewSubmission['view'],
    context: ModalContext,
  ): Promise<{ errors: Record<string, string> } | { decision: Decision }> {
    const runId = parseTrackingId(context.trackingId)?.runId;
    let approval: ApprovalView | null = null;
    try {
      approval = runId
        ? await options.client.withDeadline(Date.now() + SUBMIT_WAIT_MS, () =>
            readPendingFromMemo(options.client, runId, context.trackingId),
          )
        : null;
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 404) {
        console.error('countersign slack: an edit could not be checked:', describe(err));
        const message = 'Countersign could not reach the run just now: send the form again.';
        return { errors: modalErrors(view, [{ path: '', message }]) };
      }
    }
    // Settled, unknown or another revision: `decide` says why to the clicker, whatever the values.
    const current = approval && !staleRevisionRefusal(approval, context.revision) ? approval : null;
    const { args, errors, message } = readEdit(view, approval?.args ?? {});
    const decision: Decision = { type: 'edit', args, ...(message ? { message } : {}) };
    if (current && errors.length === 0) errors.push(...checkDecision(options.agents, current, decision));
    return errors.length > 0 ? { errors: modalErrors(view, errors) } : { decision };
  }

  /** Runs what follows Slack's answer; what fails is logged and said to the clicker. */
  const later = (responseUrl: string | undefined, work: () => Promise<void>) => async () => {
    try {
      await work();
    } catch (err) {
      console.error('countersign slack: an interaction failed:', describe(err));
      await tell(
        responseUrl,
        'Not decided: Countersign could not reach the run just now. Try again, or decide in the inbox.',
      ).catch(() => undefined);
    }
  };

  return async (interaction) => {
    if (isBlockActions(interaction))
      return { after: later(interaction.response_url, () => onClick(interaction)) };
    if (!isViewSubmission(interaction)) return { after: async () => undefined };
    const { view, user } = interaction;
    const context = readModalContext(view.private_metadata);
    if (view.callback_id === REJECT_CALLBACK)
      return { after: later(context?.responseUrl, () => onReject(interaction)) };
    if (view.callback_id !== EDIT_CALLBACK || !context) return { after: async () => undefined };
    const checked = await checkEdit(view, context);
    if ('errors' in checked)
      return { answer: { response_action: 'errors', errors: checked.errors }, after: async () => undefined };
    const { decision } = checked;
    const id = requestIdOf('edit', user.id, view.id, context.trackingId, JSON.stringify(decision));
    return {
      after: later(context.responseUrl, () => decideAs(user, context, decision, id, context.responseUrl)),
    };
  };
}
