// @ts-check
/* global document, HTMLElement */
import { api } from '../api.js';
import { append, clear, h, setText, statusChip, when } from '../dom.js';
import { pagedList, pageQuery } from '../paged.js';
import { kindBadge } from './approval.js';
import { auditView } from './audit.js';
import { runControls } from './run-controls.js';
import { standingList } from './standing.js';
import { transcriptView } from './transcript.js';

/** @typedef {import('../../types/inbox.js').Ctx} Ctx */
/** @typedef {import('../../types/inbox.js').View} View */

/** Runs a page: a screenful or two. */
const RUNS_PAGE = 50;
const RUN_STATUSES = [
  ['', 'All'],
  ['waiting', 'Waiting'],
  ['paused', 'Paused'],
  ['running', 'Running'],
  ['completed', 'Completed'],
  ['failed', 'Failed'],
  ['cancelled', 'Cancelled'],
];

/**
 * @param {Ctx} ctx
 * @param {(runId: string) => void} onStarted
 */
function startForm(ctx, onStarted) {
  const agents = ctx.state.agents;
  if (agents.length === 0) return null;
  const agent = h(
    'select',
    { id: 'start-agent', name: 'agent' },
    agents.map((a) => h('option', { value: a.name }, a.name)),
  );
  const input = h('textarea', { id: 'start-input', name: 'input', rows: 2, required: true });
  const status = h('p', { class: 'form-status', role: 'alert' });
  return h(
    'form',
    {
      class: 'panel start',
      'aria-label': 'Start a run',
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        try {
          /** @type {{ data: import('../../types/inbox.js').RunCreated }} */
          const { data } = await api('api/runs', {
            method: 'POST',
            body: { agent: agent.value, input: input.value },
          });
          input.value = '';
          setText(status, '');
          onStarted(data.runId);
        } catch (err) {
          setText(status, err instanceof Error ? err.message : err);
        }
      },
    },
    h('h2', {}, 'Start a run'),
    h('label', { for: 'start-agent' }, 'Agent'),
    agent,
    h('label', { for: 'start-input' }, 'Task'),
    input,
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, 'Start')),
    status,
  );
}

/**
 * @param {Ctx} ctx
 * @returns {Promise<View>}
 */
export async function runsView(ctx) {
  const body = h('tbody');
  const status = h(
    'select',
    {
      id: 'runs-status',
      name: 'status',
      onchange: () => runs.restart().catch((err) => ctx.toast(err.message)),
    },
    RUN_STATUSES.map(([value, text]) => h('option', { value }, text)),
  );
  const runs = pagedList(
    async (pageToken) => {
      const filter = status.value ? `&status=${encodeURIComponent(status.value)}` : '';
      /** @type {{ data: import('../../types/inbox.js').RunList }} */
      const { data } = await api(`api/runs?limit=${RUNS_PAGE}${filter}${pageQuery(pageToken)}`);
      return { items: data.runs, nextPageToken: data.nextPageToken };
    },
    {
      label: 'Show older runs',
      onError: (err) => ctx.toast(err instanceof Error ? err.message : String(err)),
      onChange: (items) =>
        body.replaceChildren(
          ...items.map((r) =>
            h(
              'tr',
              {},
              h('td', {}, h('a', { href: `#/runs/${encodeURIComponent(r.runId)}` }, r.runId)),
              h('td', {}, r.agent),
              h('td', {}, statusChip(r.status)),
              h('td', {}, String(r.pending)),
              h('td', {}, when(r.startedAt)),
            ),
          ),
        ),
    },
  );
  await runs.reload();
  return {
    element: h(
      'section',
      {},
      h('h1', {}, 'Runs'),
      startForm(ctx, (runId) => ctx.navigate(`#/runs/${encodeURIComponent(runId)}`)),
      h('div', { class: 'filters' }, h('label', { for: 'runs-status' }, 'Status'), status),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          {},
          h('caption', { class: 'sr-only' }, 'Runs: those still going first, then the most recently ended'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Run', 'Agent', 'Status', 'Pending', 'Started'].map((c) => h('th', { scope: 'col' }, c)),
            ),
          ),
          body,
        ),
      ),
      h('div', { class: 'row' }, runs.button),
    ),
    wants: (event) =>
      event.type === 'run.started' || event.type === 'run.finished' || event.type.startsWith('approval.'),
    reload: runs.reload,
  };
}

/**
 * One run: status, task, output, what waits, the conversation and the audit trail.
 * @param {Ctx} ctx
 * @param {string} runId
 * @returns {Promise<View>}
 */
export async function runView(ctx, runId) {
  const root = h('article', { class: 'run' });
  // An event that changed nothing here (a replay after a reconnection, another run's news) leaves
  // the page as it is: no flicker, and a button about to be clicked stays where it is.
  let shown = '';
  const controls = runControls(ctx, runId, () => load());
  async function load() {
    /** @type {{ data: import('../../types/inbox.js').RunDetail }} */
    const { data: run } = await api(`api/runs/${encodeURIComponent(runId)}`);
    const key = JSON.stringify(run);
    if (key === shown) return;
    shown = key;
    // A field being typed in keeps its focus across the render (the controls are placed again).
    const focused = root.contains(document.activeElement) ? document.activeElement : null;
    append(clear(root), [
      h('h1', {}, 'Run ', h('code', {}, run.runId), ' ', statusChip(run.status)),
      h('dl', { class: 'facts' }, [
        [h('dt', {}, 'Agent'), h('dd', {}, run.agent)],
        [h('dt', {}, 'Requested by'), h('dd', {}, run.requester ?? 'unknown')],
        [h('dt', {}, 'Started'), h('dd', {}, when(run.startedAt))],
        run.turns !== undefined ? [h('dt', {}, 'Turns'), h('dd', {}, String(run.turns))] : null,
      ]),
      run.worker === 'not_answering'
        ? h(
            'p',
            { class: 'hint' },
            'Its worker is not answering: shown as Temporal holds it, without the conversation or audit trail.',
          )
        : null,
      h('h2', {}, 'Task'),
      h('p', {}, run.input),
      run.output !== undefined ? [h('h2', {}, 'Answer'), h('p', { class: 'output' }, run.output)] : null,
      run.pending.length
        ? [
            h('h2', {}, 'Waiting for'),
            h(
              'ul',
              {},
              run.pending.map((p) =>
                h(
                  'li',
                  {},
                  kindBadge(p),
                  h('a', { href: `#/approvals/${encodeURIComponent(p.trackingId)}` }, p.tool),
                  ' · ',
                  p.description,
                ),
              ),
            ),
          ]
        : null,
      standingList(run, load),
      controls(run),
      h('h2', {}, 'Conversation'),
      transcriptView(run.transcript, {
        runId: run.runId,
        approvals: run.approvals,
        storedOutputs: run.storedOutputs,
      }),
      h('h2', {}, 'Audit trail'),
      auditView(run.audit, { approvals: run.approvals }),
    ]);
    if (focused instanceof HTMLElement && focused.isConnected) focused.focus();
  }
  await load();
  return { element: root, wants: (event) => event.runId === runId, reload: load };
}
