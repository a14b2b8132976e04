// @ts-check
import { api, ApiError } from './api.js';
import { pagedList, pageQuery } from './paged.js';

/** @typedef {import('../types/inbox.js').ApprovalDetail} ApprovalDetail */
/** @typedef {import('../types/inbox.js').ApprovalList} ApprovalList */
/** @typedef {import('../types/inbox.js').ApprovalSummary} ApprovalSummary */
/** @typedef {import('../types/inbox.js').RunEvent} RunEvent */

/**
 * The approvals waiting for a decision, a page of runs at a time: the first page at once, the next
 * on demand (`button`), as a reviewer reads them. The list call reads Temporal's visibility, which
 * may trail a run by a moment, so live events are applied by reading the approval itself (a query,
 * always current) rather than by listing again.
 * @param {() => void} onChange
 * @param {(err: unknown) => void} onError a page asked for with the button that failed to load
 */
export function pendingStore(onChange, onError) {
  /** @type {Map<string, ApprovalSummary>} */
  const items = new Map();
  // What events said, which a list trailing the runs must not undo: still pending, or no longer.
  const live = new Set();
  const gone = new Set();
  // Whether the list has pages after those read: `items` is then not all that waits.
  let more = false;

  /** @param {string} trackingId */
  async function refreshOne(trackingId) {
    try {
      /** @type {{ data: ApprovalDetail }} */
      const { data } = await api(`api/approvals/${encodeURIComponent(trackingId)}`);
      if (data.status === 'pending') {
        items.set(trackingId, data);
        live.add(trackingId);
      } else {
        items.delete(trackingId);
        gone.add(trackingId);
      }
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      items.delete(trackingId);
      gone.add(trackingId);
    }
  }

  // Every read reads as many pages as the reviewer has opened, so a reload keeps what is shown.
  const pages = pagedList(
    async (pageToken) => {
      /** @type {{ data: ApprovalList }} */
      const { data } = await api(`api/approvals?status=pending${pageQuery(pageToken)}`);
      return { items: data.approvals, nextPageToken: data.nextPageToken };
    },
    {
      label: 'Show more',
      onError,
      onChange(approvals, remaining) {
        more = remaining;
        const listed = new Set(approvals.map((a) => a.trackingId));
        // What the pages read no longer show went, or moved to a page not read: either way it is
        // not shown, unless events said it still waits (the list may not show it yet).
        for (const id of items.keys()) if (!listed.has(id) && !live.has(id)) items.delete(id);
        for (const a of approvals)
          if (!live.has(a.trackingId) && !gone.has(a.trackingId)) items.set(a.trackingId, a);
        onChange();
      },
    },
  );

  return {
    items,
    /** Shows the next page; hidden while none remains. */
    button: pages.button,
    /** Whether the list has pages not read yet: more may wait than `items` holds. */
    get more() {
      return more;
    },
    load: () => pages.reload(),
    /** @param {RunEvent} event */
    async apply(event) {
      if (event.type === 'run.finished') {
        for (const [id, a] of items)
          if (a.runId === event.runId) {
            items.delete(id);
            gone.add(id);
          }
      } else if (event.trackingId && event.type.startsWith('approval.')) {
        await refreshOne(event.trackingId);
      } else {
        return;
      }
      onChange();
    },
  };
}
