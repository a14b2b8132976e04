import type { ApprovalPolicyInput } from 'countersign';

/**
 * Who decides a demo tool: its role, or the admin. `npm start`'s admin both starts and decides
 * runs, so the demo allows self-approval; real policies keep the default (refused).
 */
export function demoApprovers(role: string): Pick<ApprovalPolicyInput, 'approvers' | 'allowSelfApproval'> {
  return { approvers: [role, 'admin'], allowSelfApproval: true };
}
