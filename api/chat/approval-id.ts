/**
 * The approval id a chat shows with an approval request: the tracking id and the revision shown,
 * `<trackingId>@<revision>`. The answer names both, so it decides exactly the proposal the person
 * saw; a proposal changed since is refused as stale, as on every channel.
 */
export const APPROVAL_ID = /^([A-Za-z0-9_-]{1,120}\.[1-9][0-9]{0,8})@([1-9][0-9]{0,8})$/;

export interface ApprovalRef {
  trackingId: string;
  revision: number;
}

export function approvalIdOf({ trackingId, revision }: ApprovalRef): string {
  return `${trackingId}@${revision}`;
}

export function parseApprovalId(id: string): ApprovalRef | null {
  const match = APPROVAL_ID.exec(id);
  return match ? { trackingId: match[1]!, revision: Number(match[2]) } : null;
}
