// Types the inbox's modules share, for its type check only: no browser loads this file. The API's
// answers are the API's own types (api/schemas.ts), so the check fails where the inbox reads a
// field the API does not send.
import type { AgentSpec, JsonValue, RunEvent } from '../../protocol/index.js';
import type { pendingStore } from '../js/pending-store.js';

export type {
  AgentSpec,
  ApprovalStatus,
  ApprovalView,
  ArgChange,
  Decision,
  FieldError,
  JsonObject,
  JsonSchema,
  JsonValue,
  PlanStep,
  Requirement,
  RunEvent,
  ToolSpec,
  TranscriptMessage,
  UnknownAttempt,
} from '../../protocol/index.js';
export type {
  AgentList,
  ApprovalDetail,
  ApprovalList,
  ApprovalSummary,
  DecisionSubmitted,
  EditPreview,
  Me,
  RunCreated,
  RunDetail,
  RunList,
} from '../../api/schemas.js';

/** What every view is given: the agents, the toast, navigation and the live list of what waits. */
export interface Ctx {
  state: { agents: AgentSpec[] };
  toast(message: string): void;
  navigate(hash: string): void;
  pending: ReturnType<typeof pendingStore>;
}

/** A page of the inbox: its element, and the live events it reads itself again for. */
export interface View {
  element: HTMLElement;
  wants?(event: RunEvent): boolean;
  reload?(): Promise<void>;
  pendingChanged?(): void;
}

/** What `h` takes as children: text (its bidirectional controls marked), nodes, and lists of them. */
export type Child = Node | string | number | false | null | undefined | readonly Child[];

/** What the forms read of a JSON Schema (a tool's, as zod's toJSONSchema writes it); validate.js checks the rest. */
export interface FormSchema {
  type?: string | string[];
  enum?: JsonValue[];
  description?: string;
  maxLength?: number;
  properties?: Record<string, FormSchema>;
  required?: string[];
}

/** A change of one argument against the proposal; `invalid` says why its new value is not valid. */
export interface Change {
  path: string;
  before?: JsonValue;
  after?: JsonValue;
  /** What the field holds, when it does not even read as a value. */
  text?: string;
  invalid?: string[];
}
