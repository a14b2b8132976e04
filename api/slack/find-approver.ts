import type { WebClient } from '@slack/web-api';
import { identityOf, type ApproverConfig, type ApproverIdentity } from '../../protocol/index.js';
import { carriedIdentity } from '../identity.js';
import type { FindSlackApprover, SlackUser } from './options.js';

/**
 * The approvers file's answer: the approver whose `slackId` is the clicker's, else the one without
 * a `slackId` whose email is the one Slack has for them (an approver who names a Slack id is
 * matched by it alone).
 */
export function approversFileLookup(approvers: ApproverConfig[]): FindSlackApprover {
  return async (user) => {
    const byId = approvers.find((a) => a.slackId === user.id);
    if (byId) return identityOf(byId);
    if (!approvers.some((a) => !a.slackId && a.email)) return undefined;
    const email = (await user.email())?.toLowerCase();
    const byEmail = email && approvers.find((a) => !a.slackId && a.email?.toLowerCase() === email);
    return byEmail ? identityOf(byEmail) : undefined;
  };
}

/** The clicker as `findApprover` sees them: their email is read from Slack only when asked for. */
export function slackUser(web: () => Promise<WebClient>, user: { id: string; team_id?: string }): SlackUser {
  let email: Promise<string | undefined> | undefined;
  return {
    id: user.id,
    ...(user.team_id ? { teamId: user.team_id } : {}),
    email: () =>
      (email ??= web()
        .then((client) => client.users.info({ user: user.id }))
        .then(({ user: found }) =>
          found && !found.deleted && !found.is_bot ? found.profile?.email || undefined : undefined,
        )),
  };
}

/** The approver, held to the rules every identity is (an id the protocol cannot carry is refused). */
export async function approverOfSlackUser(
  find: FindSlackApprover,
  user: SlackUser,
): Promise<ApproverIdentity | undefined> {
  const approver = await find(user);
  return approver && carriedIdentity(approver);
}
