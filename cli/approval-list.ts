import type { ApprovalView } from '../protocol/index.js';
import type { Api } from './http.js';

/**
 * Runs a request when reading every page of pending approvals: the API's most, not its default of
 * 50 (a reviewer's first screen), which would take 20 times as many requests.
 */
export const WHOLE_LIST_LIMIT = '1000';

export function queryString(params: Record<string, string | undefined>): string {
  const entries = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
}

/**
 * Approvals the filter matches, page after page (the API pages by runs), up to `maxPages`; the
 * token of the page after the last one read, if any remain.
 */
export async function readApprovals(
  api: Api,
  params: Record<string, string | undefined>,
  maxPages = Number.POSITIVE_INFINITY,
): Promise<{ approvals: ApprovalView[]; nextPageToken?: string }> {
  const approvals: ApprovalView[] = [];
  let pageToken = params.pageToken;
  for (let pages = 0; pages < maxPages; pages++) {
    const page = await api.get<{ approvals: ApprovalView[]; nextPageToken?: string }>(
      `/api/approvals${queryString({ ...params, pageToken })}`,
    );
    approvals.push(...page.approvals);
    pageToken = page.nextPageToken;
    if (!pageToken) break;
  }
  return { approvals, ...(pageToken ? { nextPageToken: pageToken } : {}) };
}
