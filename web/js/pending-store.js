// @ts-check
import { api, ApiError } from './api.js';
import { pageQuery } from './paged.js';

/** @typedef {import('../types/inbox.js').ApprovalDetail} ApprovalDetail */
/** @typedef {import('../types/inbox.js').ApprovalList} ApprovalList */
/** @typedef {import('../types/inbox.js').ApprovalSummary} ApprovalSummary */
/** @typedef {import('../types/inbox.js').RunEvent} RunEvent */

/**
 * The approvals waiting for a decision. The list call reads Temporal's visibility, which may trail
 * a run by a moment, so live events are applied by reading the approval itself (a query, always
 * current) rather than by listing again.
 * @param {() => void} onChange
 */
export function pendingStore(onChange) {
  /** @type {Map<string, ApprovalSummary>} */
  const items = new Map();
  // What events said, which a list trailing the runs must not undo: still pending, or no longer.
  const live = new Set();
  const gone = new Set();

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

  return {
    items,
    async load() {
      // The API pages by runs; the inbox shows every page.
      /** @type {ApprovalSummary[]} */
      const approvals = [];
      let pageToken = '';
      do {
        /** @type {{ data: ApprovalList }} */
        const { data } = await api(`api/approvals?status=pending${pageQuery(pageToken)}`);
        approvals.push(...data.approvals);
        pageToken = data.nextPageToken ?? '';
      } while (pageToken);
      const listed = new Set(approvals.map((a) => a.trackingId));
      // Keep what events added that the list does not show yet.
      for (const id of items.keys()) if (!listed.has(id) && !live.has(id)) items.delete(id);
      for (const a of approvals)
        if (!live.has(a.trackingId) && !gone.has(a.trackingId)) items.set(a.trackingId, a);
      onChange();
    },
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
