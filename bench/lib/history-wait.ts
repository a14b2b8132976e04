/** The few fields of a Temporal history event this waiter reads; both SDK versions decode to this. */
export interface HistoryEventLike {
  eventId?: { toString(): string } | null;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null;
  activityTaskCompletedEventAttributes?: { scheduledEventId?: { toString(): string } | null } | null;
  workflowTaskCompletedEventAttributes?: unknown;
}

export type FetchHistoryPage = (
  nextPageToken: Uint8Array | undefined,
) => Promise<{ events: HistoryEventLike[]; nextPageToken?: Uint8Array | null }>;

/**
 * Resolves once the run has settled into waiting for a human: an activity of the given type
 * (any, when absent) has completed and a workflow task after it has completed too, so the
 * workflow has taken the result and is blocked. Long-polls the history (waitNewEvent), the way
 * Temporal's own clients wait, instead of querying in a loop.
 */
export async function waitUntilPaused(fetchPage: FetchHistoryPage, activityType?: string): Promise<void> {
  const scheduled = new Map<string, string>();
  let activityDone = false;
  let token: Uint8Array | undefined;
  for (;;) {
    const page = await fetchPage(token);
    for (const event of page.events) {
      const id = String(event.eventId ?? '');
      const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
      if (name) scheduled.set(id, name);
      const completed = event.activityTaskCompletedEventAttributes;
      if (completed) {
        const type = scheduled.get(String(completed.scheduledEventId ?? ''));
        if (activityType === undefined || type === activityType) activityDone = true;
      }
      if (activityDone && event.workflowTaskCompletedEventAttributes) return;
    }
    if (!page.nextPageToken || page.nextPageToken.length === 0)
      throw new Error('run closed before it paused');
    token = page.nextPageToken;
  }
}
