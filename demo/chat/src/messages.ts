/**
 * The chat's messages as the page types them: the AI SDK's `UIMessage`, with the data parts
 * `countersignChat` sends (docs/channels.md, "Countersign's data parts"), as far as the page reads them.
 */
import type { UIMessage } from 'ai';

export interface Requirement {
  roles: string[];
  count: number;
  /** Qualifying sign-offs so far. */
  have: number;
  reason: string;
}

export interface ApprovalData {
  state: 'requested' | 'waiting' | 'decided';
  trackingId: string;
  /** The call it decides, which the page shows it with. */
  toolCallId: string;
  description?: string;
  requirements?: Requirement[];
  signedBy?: string[];
  /** Once decided: how it ended, and each decision with its author, channel and message. */
  status?: string;
  by?: string[];
  decisions?: { actor: string; channel?: string; decision?: string; message?: string }[];
}

export interface RefusedData {
  approvalId: string;
  code: string;
  reason: string;
}

export interface RunData {
  runId: string;
  status: string;
  reason?: string;
}

export type ChatMessage = UIMessage<
  unknown,
  { 'countersign-approval': ApprovalData; 'countersign-refused': RefusedData; 'countersign-run': RunData }
>;
