// @ts-check
import { h } from './dom.js';

/** The query parameter that asks for the page after `pageToken`, if any. */
export const pageQuery = (/** @type {string | undefined} */ pageToken) =>
  pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : '';

/**
 * A list the API serves a page at a time. Its button appends the next page; `reload`
 * reads again as many pages as are shown, so a live update keeps what the reader has opened;
 * `restart` goes back to the first page (a filter changed). `fetchPage(pageToken)` resolves to
 * `{ items, nextPageToken }`; a page that fails to load goes to `onError`. `onChange` is told
 * whether more pages remain.
 * @template T
 * @param {(pageToken: string) => Promise<{ items: T[], nextPageToken?: string }>} fetchPage
 * @param {{ label: string, onChange: (items: T[], more: boolean) => void, onError: (err: unknown) => void }} options
 */
export function pagedList(fetchPage, { label, onChange, onError }) {
  /** @type {T[]} */
  let items = [];
  let pages = 0;
  // Each reload starts a generation; a page read for an older one (a filter changed meanwhile, or
  // a live update overtook it) is dropped, never shown over a newer read.
  let generation = 0;
  const button = h('button', { type: 'button', hidden: true, onclick: () => more() }, label);

  // One more page is a reload of one more page than shown: a live update's reload that overtakes
  // it then reads that page too, instead of dropping the reader's click.
  async function more() {
    pages++;
    button.disabled = true;
    try {
      await list.reload();
    } catch (err) {
      pages--;
      onError(err);
    } finally {
      button.disabled = false;
    }
  }
  const list = {
    button,
    async reload() {
      const mine = ++generation;
      /** @type {T[]} */
      const read = [];
      let token = '';
      let readPages = 0;
      do {
        const page = await fetchPage(token);
        if (mine !== generation) return;
        read.push(...page.items);
        token = page.nextPageToken ?? '';
        readPages++;
      } while (token && readPages < pages);
      items = read;
      pages = readPages;
      button.hidden = !token;
      onChange(items, Boolean(token));
    },
    restart() {
      pages = 0;
      return list.reload();
    },
  };
  return list;
}
