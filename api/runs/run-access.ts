/** What the read rule (access.ts) looks at of a run: all of it from the run's listing, no query, no worker. */
export interface RunAccess {
  agent?: string;
  requester?: string;
  pendingRoles: readonly string[];
}
