// @ts-check
/* global document, window */
import { api, ApiError, token } from './api.js';
import { h, setText } from './dom.js';
import { subscribe } from './events.js';
import { pendingStore } from './pending-store.js';
import { approvalView } from './views/approval.js';
import { decidedView, inboxView } from './views/lists.js';
import { runView, runsView } from './views/runs.js';

/** @typedef {import('../types/inbox.js').Ctx} Ctx */
/** @typedef {import('../types/inbox.js').RunEvent} RunEvent */
/** @typedef {import('../types/inbox.js').View} View */

/** An element of index.html, which has every one this module asks for. */
const byId = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

const main = byId('main');
const live = byId('live');
const count = byId('pending-count');
const signOut = byId('sign-out');
/** @type {View | null} */
let current = null;
/** @type {AbortController | null} */
let stream = null;
// Whether `api/me` answered: by a stored token, or by the host's own session.
let signedIn = false;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;

const pending = pendingStore(
  () => {
    const n = pending.items.size;
    // With pages not read yet, the count is a floor, never a total it does not know.
    count.textContent = pending.more ? `${n}+` : n > 0 ? String(n) : '';
    if (pending.more) count.title = `${n} loaded; more wait: Show more in the inbox lists them`;
    else count.removeAttribute('title');
    current?.pendingChanged?.();
  },
  (err) => ctx.toast(err instanceof Error ? err.message : String(err)),
);
/** @type {Ctx} */
const ctx = {
  state: { agents: [] },
  pending,
  toast(message) {
    // In the top bar, in the page's flow: it never covers what a decision just changed below it.
    const el = byId('toast');
    setText(el, message);
    el.classList.add('show');
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => el.classList.remove('show'), 3000);
  },
  navigate(hash) {
    window.location.hash = hash;
  },
};
/** @type {[RegExp, (match: RegExpExecArray) => Promise<View>][]} */
const ROUTES = [
  [/^#\/approvals\/(.+)$/, (m) => approvalView(ctx, decodeURIComponent(m[1]))],
  [/^#\/runs\/(.+)$/, (m) => runView(ctx, decodeURIComponent(m[1]))],
  [/^#\/runs$/, () => runsView(ctx)],
  [/^#\/decided$/, () => decidedView(ctx)],
  [/^/, () => inboxView(ctx)],
];

// Views load asynchronously: only the latest navigation may put its view on the page.
let routeSeq = 0;
// Events that came while a view loaded (null when none loads): its read may predate them.
/** @type {RunEvent[] | null} */
let arrivedWhileLoading = null;
async function route() {
  const seq = ++routeSeq;
  arrivedWhileLoading = [];
  // Until the next view is shown, the one still on screen takes no clicks: a Cancel or an Approve
  // pressed in that moment would act on the run just left, not on the one asked for.
  setBusy(true);
  const hash = window.location.hash;
  // The last route matches every hash.
  const [pattern, view] = /** @type {(typeof ROUTES)[number]} */ (ROUTES.find(([p]) => p.test(hash)));
  for (const link of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-nav]'))) {
    const section = hash.startsWith('#/runs')
      ? 'runs'
      : hash.startsWith('#/decided')
        ? 'decided'
        : hash.startsWith('#/approvals')
          ? ''
          : 'inbox';
    if (link.dataset.nav === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  try {
    const next = await view(/** @type {RegExpExecArray} */ (pattern.exec(hash)));
    if (seq !== routeSeq) return;
    current = next;
    setBusy(false);
    main.replaceChildren(next.element);
    main.focus({ preventScroll: true });
    const missed = arrivedWhileLoading?.find((event) => next.wants?.(event));
    arrivedWhileLoading = null;
    if (missed) reloadFor(missed);
  } catch (err) {
    if (seq !== routeSeq) return;
    arrivedWhileLoading = null;
    current = null;
    setBusy(false);
    if (err instanceof ApiError && err.status === 401) return showTokenForm(refusedWords());
    main.replaceChildren(
      h('h1', {}, err instanceof ApiError && err.status === 404 ? 'Not found' : 'Something went wrong'),
      h('p', {}, err instanceof Error ? err.message : String(err)),
    );
  }
}

/** @param {boolean} busy */
function setBusy(busy) {
  main.inert = busy;
  if (busy) main.setAttribute('aria-busy', 'true');
  else main.removeAttribute('aria-busy');
}

// Live events re-render only the view they touch, at most a few times a second.
/** @type {ReturnType<typeof setTimeout> | null} */
let reloadTimer = null;
/** @param {import('./events.js').StreamMessage} message */
function onEvent({ data }) {
  if (!data || typeof data !== 'object' || !('type' in data) || !data.type) return;
  const event = /** @type {RunEvent} */ (data);
  ctx.pending.apply(event).catch((err) => ctx.toast(err.message));
  arrivedWhileLoading?.push(event);
  reloadFor(event);
}

/** @type {View | null} */
let reloading = null;
/** @param {RunEvent} event */
function reloadFor(event) {
  if (!current?.wants?.(event) || (reloadTimer && reloading === current)) return;
  if (reloadTimer) clearTimeout(reloadTimer);
  const view = (reloading = current);
  reloadTimer = setTimeout(() => {
    reloadTimer = null;
    if (view === current) view.reload?.().catch((err) => ctx.toast(err.message));
  }, 150);
}

function startStream() {
  stream?.abort();
  stream = new AbortController();
  subscribe('api/events', {
    signal: stream.signal,
    onEvent,
    onState: (state) => {
      live.textContent = state;
      live.dataset.state = state;
      // The stream is subscribed before it answers: what the view and the list read from now on
      // plus what the stream brings is everything. Read both again on every (re)connection.
      if (state === 'live') {
        ctx.pending.load().catch(() => undefined);
        current?.reload?.().catch(() => undefined);
      }
    },
  });
}

/** Why a 401 came: the stored token, or (with none) a host session that has ended. */
const refusedWords = () =>
  token.get()
    ? 'That token was not accepted.'
    : 'You are not signed in here: sign in to the site, or paste a token.';

/** @param {string} [problem] */
function showTokenForm(problem) {
  signedIn = false;
  stream?.abort();
  setBusy(false);
  signOut.hidden = true;
  const input = h('input', {
    id: 'token',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  main.replaceChildren(
    h(
      'form',
      {
        class: 'panel token',
        onsubmit: (/** @type {SubmitEvent} */ e) => {
          e.preventDefault();
          token.set(input.value.trim());
          start();
        },
      },
      h('h1', {}, 'Sign in'),
      h(
        'p',
        {},
        'Paste your approver token. With no approvers file, the admin token is in the data directory (admin-token) and was printed at start.',
      ),
      h('label', { for: 'token' }, 'Approver token'),
      input,
      problem ? h('p', { class: 'field-error', role: 'alert' }, problem) : null,
      h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, 'Sign in')),
    ),
  );
  input.focus();
}

/**
 * Asks who this is before asking for a token: where the host mounts the router behind its own
 * login, its session cookie already answers. The token form shows only when nothing does.
 */
async function start() {
  const hadToken = Boolean(token.get());
  try {
    /** @type {[{ data: import('../types/inbox.js').Me }, { data: import('../types/inbox.js').AgentList }]} */
    const [{ data: me }, { data: agents }] = await Promise.all([api('api/me'), api('api/agents')]);
    ctx.state.agents = agents.agents;
    signOut.hidden = false;
    signOut.textContent = hadToken ? `${me.approver.id} · change token` : `${me.approver.id} · use a token`;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401)
      return showTokenForm(hadToken ? refusedWords() : undefined);
    return showTokenForm(err instanceof Error ? err.message : String(err));
  }
  signedIn = true;
  startStream();
  await route();
}

signOut.addEventListener('click', () => {
  token.clear();
  showTokenForm();
});
window.addEventListener('hashchange', () => {
  if (signedIn) route();
});
start();
