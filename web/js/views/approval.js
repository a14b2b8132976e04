// @ts-check
import { api } from '../api.js';
import { diffArgs, diffView } from '../args-editor.js';
import { append, clear, h, json, statusChip, time } from '../dom.js';
import { describeCall } from '../describe-call.js';
import { auditView } from './audit.js';
import { argValues } from './arg-values.js';
import { decisionPanel } from './decision-panel.js';
import { rulePreview } from './rule-preview.js';
import { OUTCOME_HOW, attemptFacts, outcomeBadge } from './outcome.js';
import { SECRET_HOW, secretAsked, secretBadge, secretKept, secretLabel } from './secret.js';
import { modelWords, transcriptView } from './transcript.js';

/** @typedef {import('../../types/inbox.js').ApprovalDetail} ApprovalDetail */
/** @typedef {import('../../types/inbox.js').ApprovalSummary} ApprovalSummary */
/** @typedef {import('../../types/inbox.js').Child} Child */
/** @typedef {import('../../types/inbox.js').Ctx} Ctx */
/** @typedef {import('../../types/inbox.js').JsonObject} JsonObject */
/** @typedef {import('../../types/inbox.js').Requirement} Requirement */
/** @typedef {import('../../types/inbox.js').View} View */
/** @typedef {import('./rule-preview.js').RulePreview} RulePreview */

/**
 * What an approval is called: its tool, or what kind of decision it is when that says more.
 * @param {ApprovalSummary} a
 */
export function approvalTitle(a) {
  if (a.kind === 'plan') return 'Plan review';
  if (a.kind === 'question') return 'Question from the agent';
  if (a.kind === 'result') return `Result of ${a.tool}`;
  if (a.kind === 'outcome') return `Did this happen? ${a.tool}`;
  if (a.kind === 'secret') return `Secret needed: ${secretLabel(a)}`;
  return a.tool;
}

/**
 * The agent that asks: for a sub-agent, the chain from the root's agent down to it and its tool
 * ("ops → payments → transfer"), so people who look at the root know where it comes from.
 * @param {ApprovalSummary} a
 */
export function askedBy(a) {
  return a.chain ? [...a.chain.agents, a.tool].join(' → ') : a.agent;
}

/**
 * A title's mark of its kind, where the kind changes what the answers mean.
 * @param {ApprovalSummary} a
 */
export function kindBadge(a) {
  if (a.kind === 'outcome') return [outcomeBadge(), ' '];
  if (a.kind === 'secret') return [secretBadge(), ' '];
  return null;
}

/** Who answered, as the details say it: a secret is supplied, an outcome answered, the rest approved. */
const ANSWERED_BY = /** @type {Record<string, string>} */ ({ outcome: 'Answered by', secret: 'Supplied by' });

/**
 * The names for the details' "… by" row. A secret is supplied with respond, which signs no
 * approval, so who supplied it is read from its outcome.
 * @param {ApprovalSummary} a
 */
function answeredBy(a) {
  if (a.approvals.length) return a.approvals.map((s) => s.approver).join(', ');
  if (a.kind === 'secret' && a.outcome?.status === 'responded' && a.outcome.by.length)
    return a.outcome.by.join(', ');
  return a.status === 'pending' ? 'nobody yet' : 'nobody';
}

/** Whom a rule's requirements name, where that is not simply the policy. */
const RULE_HEADING = /** @type {Record<string, string>} */ ({
  outcome: 'Asked of the call’s approvers',
  secret: 'Asked of the tool’s approvers',
});

/** Whether a rule's words name an argument: as a word of their own (`amount over 1000`). */
const namesArg = (/** @type {string} */ reason, /** @type {string} */ name) =>
  new RegExp(`(^|[\\s(])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[\\s)]|$)`).test(reason);

/**
 * The arguments a rule's conditions name (`amount over 1000`), with the values they have now: as
 * the approver is editing them, with the proposal's beside any they changed.
 * @param {string} reason
 * @param {JsonObject | undefined} args
 * @param {JsonObject | undefined} proposed
 */
function ruleValues(reason, args = {}, proposed) {
  const names = Object.keys(args).filter((name) => namesArg(reason, name));
  if (names.length === 0) return null;
  return h(
    'span',
    { class: 'rule-values' },
    'where ',
    names.map((name, i) => {
      const now = JSON.stringify(args[name]);
      const before = JSON.stringify(proposed?.[name]);
      return [
        i > 0 ? ', ' : '',
        h('code', {}, name),
        ' is ',
        h('code', {}, now),
        before !== now ? [' (proposed ', h('code', {}, before ?? 'absent'), ')'] : null,
      ];
    }),
  );
}

const sameRequirement = (/** @type {Requirement} */ a, /** @type {Requirement} */ b) =>
  JSON.stringify(a) === JSON.stringify(b);

/**
 * Which policy rule asked for this decision, in words, who must give it, and how much of it is met.
 * `edited`: the arguments as the approver is editing them, whose values the rule then shows;
 * `preview`: what the run says the edit would need (see rule-preview.js): the requirements of the
 * tier it moves into, marked as the edit's, and a warning for any nobody can meet.
 * @param {ApprovalSummary} a
 * @param {JsonObject} [edited]
 * @param {RulePreview | null} [preview]
 */
function ruleView(a, edited, preview) {
  const args = a.kind === 'call' ? (edited ?? a.outcome?.args ?? a.args) : undefined;
  const requirements = preview?.requirements ?? a.requirements;
  // An edit is a new proposal: sign-offs on the one before do not carry over to it.
  const approvals = preview?.requirements ? [] : a.approvals;
  return h(
    'section',
    { class: 'rule', 'aria-label': 'Why this needs a decision' },
    // An outcome goes to those the call's approval named: the policy asked them once already. A
    // secret goes to those who may decide for its tool (its call's approvers, or its policy's).
    h('h3', {}, RULE_HEADING[a.kind] ?? 'Asked for by the policy'),
    h(
      'ul',
      { class: 'requirements' },
      requirements.map((r) => {
        // Those who proposed what a requirement covers (a step they added) do not count toward it.
        const have = approvals.filter(
          (s) => !r.notBy?.includes(s.approver) && s.roles.some((role) => r.roles.includes(role)),
        ).length;
        const notBy = r.notBy?.length ? `, not ${r.notBy.join(' or ')}` : '';
        const added = preview && !a.requirements.some((shown) => sameRequirement(shown, r));
        return h(
          'li',
          {},
          h(
            'span',
            { class: 'need' },
            `${r.roles.join(' or ')}${notBy}: ${Math.min(have, r.count)} of ${r.count}${have >= r.count ? ' (met)' : ''}`,
            added ? [' ', h('span', { class: 'as-edited muted' }, '(with your edit)')] : null,
          ),
          h(
            'span',
            { class: 'why' },
            r.tier ? [h('span', { class: 'tier' }, r.tier), ' · '] : null,
            'rule ',
            h('q', {}, r.reason),
          ),
          ruleValues(r.reason, args, a.args),
        );
      }),
    ),
    preview?.refused ? h('p', { class: 'rule-warning', role: 'alert' }, preview.refused) : null,
    (preview?.warnings ?? []).map((warning) =>
      h('p', { class: 'rule-warning', role: 'alert' }, `Nobody can complete this: ${warning}.`),
    ),
  );
}

/**
 * The description as the edit being typed makes it, filled in as the workflow fills it, and marked
 * as the edit's; the workflow's own once the edit is undone.
 * @param {HTMLElement} lede
 * @param {Ctx} ctx
 * @param {ApprovalDetail} a
 * @param {JsonObject} args
 */
function followEdit(lede, ctx, a, args) {
  const edited = diffArgs(a.args, args).length > 0;
  const tool = ctx.state.agents
    ?.find((agent) => agent.name === a.agent)
    ?.tools.find((spec) => spec.name === a.tool);
  const described = edited ? describeCall(tool, args) : null;
  clear(lede);
  append(
    lede,
    described === null
      ? [a.description]
      : [described, ' ', h('span', { class: 'as-edited muted' }, '(with your edit)')],
  );
}

/** @param {ApprovalSummary} a */
function facts(a) {
  /** @type {[string, Child][]} */
  const rows = [
    ['Agent', askedBy(a)],
    ...(a.chain
      ? /** @type {[string, Child][]} */ ([
          [
            'Root run',
            h('a', { href: `#/runs/${encodeURIComponent(a.chain.rootRunId)}` }, a.chain.rootRunId),
          ],
        ])
      : []),
    ['Run', h('a', { href: `#/runs/${encodeURIComponent(a.runId)}` }, a.runId)],
    ['Tracking id', h('code', {}, a.trackingId)],
    ['Requested by', a.requester ?? 'unknown'],
    ['Requested', time(a.requestedAt)],
    ['Deadline', [time(a.deadline), a.escalated ? ' (escalated)' : '']],
    ['Who may decide', a.approvers.join(', ')],
    ['Revision', String(a.revision)],
    [ANSWERED_BY[a.kind] ?? 'Approved by', answeredBy(a)],
  ];
  return h(
    'dl',
    { class: 'facts' },
    rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
  );
}

/**
 * What an approver judges, as fields to compare: a call's arguments, or the output under review.
 * An output need not be an object (a string, a list, null): then it is compared whole.
 * @param {ApprovalSummary} a
 * @returns {JsonObject}
 */
function judged(a) {
  if (a.kind !== 'result') return a.args;
  const output = a.result ?? null;
  return output !== null && typeof output === 'object' && !Array.isArray(output)
    ? output
    : { result: output };
}

/**
 * A decided approval's proposal, as it finally stood.
 * @param {ApprovalSummary} a
 * @returns {Child[]}
 */
function decidedProposal(a) {
  if (a.kind === 'question')
    return [h('h2', {}, 'Question'), h('p', { class: 'question' }, a.question ?? '')];
  if (a.kind === 'plan')
    return [
      h('h2', {}, 'Plan'),
      h(
        'ol',
        { class: 'plan' },
        (a.outcome?.plan ?? a.plan ?? []).map((step) =>
          h(
            'li',
            {},
            h('code', {}, step.tool),
            step.addedBy ? h('span', { class: 'added-by' }, ` added by ${step.addedBy}`) : null,
            argValues(step.args),
          ),
        ),
      ),
    ];
  // A secret's value is shown nowhere: what was asked, and the outcome says who supplied it.
  if (a.kind === 'secret') return [...secretAsked(a), secretKept(a)];
  if (a.kind === 'outcome')
    return [
      h('h2', {}, 'The call that ran'),
      h('p', {}, h('code', {}, a.tool)),
      argValues(a.args),
      h('h2', {}, 'What was known of the attempt'),
      attemptFacts(a.attempt),
    ];
  /** @type {Child[]} */
  const parts = [
    h('h2', {}, 'Call'),
    h('p', {}, h('code', {}, a.tool)),
    argValues(a.outcome?.args ?? a.args),
  ];
  if (a.kind === 'result') parts.push(h('h2', {}, 'Result for review'), h('pre', {}, json(a.result)));
  return parts;
}

/** How an approval ended, as the lists and the approval view say it. */
export const HOW = /** @type {Record<string, string>} */ ({
  approved: 'Approved',
  edited: 'Approved with edits',
  rejected: 'Rejected',
  responded: 'Answered',
  expired: 'Expired',
  cancelled: 'Cancelled',
});

/**
 * How this approval ended, in the words of its kind.
 * @param {ApprovalSummary} a
 * @param {string} status
 */
export const howSettled = (a, status) =>
  (a.kind === 'outcome' ? OUTCOME_HOW : a.kind === 'secret' ? SECRET_HOW : HOW)[status] ?? status;

/** @param {ApprovalSummary} a */
function outcome(a) {
  const o = a.outcome;
  if (!o) return h('p', {}, statusChip(a.status));
  return h(
    'section',
    { class: 'panel', 'aria-label': 'Outcome' },
    h('h2', {}, 'Outcome'),
    h(
      'p',
      {},
      statusChip(o.status),
      ` ${howSettled(a, o.status)}`,
      o.by.length ? ` by ${o.by.join(', ')}` : '',
      ' · ',
      time(o.at),
    ),
    o.message ? h('p', {}, '“', o.message, '”') : null,
    o.diff?.length ? diffView(o.diff) : null,
    o.result !== undefined ? h('pre', {}, json(o.result)) : null,
  );
}

/**
 * One approval. At the top, side by side: the proposal (the arguments editor) and the decision
 * panel (why it is asked, approve, reject), so both are in the first screenful; below them the
 * run's context, the details, the raw JSON and the audit trail.
 * @param {Ctx} ctx
 * @param {string} trackingId
 * @returns {Promise<View>}
 */
export async function approvalView(ctx, trackingId) {
  const root = h('article', { class: 'approval' });
  /** @type {ApprovalDetail | null} */
  let shown = null;
  let loads = 0;
  /**
   * `ownDecision`: this page just decided, so a new revision is its own doing, not news.
   * @param {{ ownDecision?: boolean }} [options]
   */
  async function load({ ownDecision = false } = {}) {
    // A live update and a decision can both reload: only the latest one started may render.
    const mine = ++loads;
    if (ownDecision) shown = null;
    /** @type {{ data: ApprovalDetail }} */
    const { data: a } = await api(`api/approvals/${encodeURIComponent(trackingId)}`);
    /** @type {import('../../types/inbox.js').RunDetail | null} */
    const run = await api(`api/runs/${encodeURIComponent(a.runId)}`).then(
      (r) => r.data,
      () => null,
    );
    if (mine !== loads) return;
    // Changed while open (an edit elsewhere): say so and show what changed above any button.
    const changed =
      shown && a.revision !== shown.revision
        ? h(
            'section',
            { class: 'changed', role: 'alert', 'aria-label': 'Proposal changed' },
            h(
              'h2',
              {},
              `The proposal changed while you were looking (revision ${shown.revision} → ${a.revision})`,
            ),
            a.kind === 'plan' ? h('pre', {}, json(a.plan)) : diffView(diffArgs(judged(shown), judged(a))),
          )
        : null;
    shown = a;
    const words = run ? modelWords(run.transcript, a.toolCallId) : '';
    const pending = a.status === 'pending';
    const lede = h('p', { class: 'lede' }, a.description);
    const rule = ruleView(a);
    let typed = a.args;
    // The run's answer for the edit typed last; the typed values show at once, the answer when it comes.
    const preview = rulePreview(a, (answer) =>
      rule.replaceChildren(...ruleView(a, typed, answer).childNodes),
    );
    const decision = pending
      ? decisionPanel(ctx, a, load, {
          rule,
          onEdit: (args) => {
            // Heard again on leaving a field: what is shown, and the run's answer, already fit.
            if (JSON.stringify(args) === JSON.stringify(typed)) return;
            typed = args;
            rule.replaceChildren(...ruleView(a, args).childNodes);
            followEdit(lede, ctx, a, args);
            preview(args);
          },
        })
      : null;
    append(clear(root), [
      h('h1', {}, kindBadge(a), approvalTitle(a), ' ', statusChip(a.status)),
      lede,
      h(
        'p',
        { class: 'meta muted' },
        `Requested by ${a.requester ?? 'unknown'} · ${askedBy(a)} · `,
        h('a', { href: `#/runs/${encodeURIComponent(a.runId)}` }, 'run'),
        pending ? [' · due ', time(a.deadline), a.escalated ? ' (escalated)' : ''] : null,
      ),
      changed,
      h(
        'div',
        { class: 'approval-grid' },
        decision
          ? decision.work
          : h('section', { class: 'work', 'aria-label': 'Proposal' }, decidedProposal(a)),
        h('div', { class: 'side' }, decision ? decision.panel : [ruleView(a), outcome(a)]),
      ),
      run
        ? h(
            'section',
            { 'aria-label': 'Context' },
            h('h2', {}, 'Context'),
            h('p', { class: 'asked' }, h('span', { class: 'muted' }, 'Asked: '), run.input),
            words ? h('blockquote', { class: 'words' }, words) : null,
            h(
              'details',
              {},
              h('summary', {}, 'Full transcript'),
              transcriptView(run.transcript, {
                runId: a.runId,
                highlight: a.toolCallId,
                approvals: run.approvals,
                storedOutputs: run.storedOutputs,
              }),
            ),
          )
        : null,
      h('section', { 'aria-label': 'Details' }, h('h2', {}, 'Details'), facts(a)),
      h(
        'details',
        { class: 'raw' },
        h('summary', {}, 'Raw JSON'),
        // A secret approval's arguments are its call's, for reading only: what it asks for comes first.
        a.kind === 'secret'
          ? [
              h('pre', { 'aria-label': 'Secret asked for' }, json(a.secret)),
              h('pre', { class: 'args', 'aria-label': 'Arguments of the call' }, json(a.args)),
            ]
          : h('pre', { class: 'args', 'aria-label': 'Proposed arguments' }, json(a.args)),
        a.plan ? h('pre', { 'aria-label': 'Proposed plan' }, json(a.plan)) : null,
        a.result !== undefined ? h('pre', { 'aria-label': 'Result' }, json(a.result)) : null,
        a.attempt ? h('pre', { 'aria-label': 'Attempt' }, json(a.attempt)) : null,
      ),
      h(
        'section',
        { 'aria-label': 'Audit trail' },
        h('h2', {}, 'Audit trail'),
        // The approval's own answer holds what was decided; the request heads the trail, from the run's.
        auditView(
          [
            ...(run?.audit ?? []).filter(
              (e) => e.trackingId === a.trackingId && e.type === 'approval.requested',
            ),
            ...a.decisions,
          ],
          { approvals: [a] },
        ),
      ),
    ]);
  }
  await load();
  return {
    element: root,
    wants: (event) =>
      event.trackingId === trackingId &&
      ['approval.decided', 'approval.settled', 'approval.escalated'].includes(event.type),
    reload: () => load(),
  };
}
