// @ts-check
import { api, ApiError } from '../api.js';
import { argsEditor, diffView } from '../args-editor.js';
import { h, json, setText } from '../dom.js';
import { answerValue } from '../result-editor.js';
import { argValues } from './arg-values.js';
import { OUTCOME_DONE } from './outcome.js';
import { outcomeChoices } from './outcome-choices.js';
import { planEditor } from './plan.js';
import { SECRET_DONE, secretForm } from './secret.js';
import { standingChoice } from './standing.js';

/** @typedef {import('../../types/inbox.js').ApprovalDetail} ApprovalDetail */
/** @typedef {import('../../types/inbox.js').Ctx} Ctx */
/** @typedef {import('../../types/inbox.js').Decision} Decision */
/** @typedef {import('../../types/inbox.js').DecisionSubmitted} DecisionSubmitted */
/** @typedef {import('../../types/inbox.js').FieldError} FieldError */
/** @typedef {import('../../types/inbox.js').Child} Child */

/**
 * What the panel lends a kind's own controls (outcome-choices.js, secret.js): `button` makes a
 * button the panel disables while a decision is on its way; `send` sends one, handing the field
 * errors of a refusal to `showFieldErrors`; `say` writes above the buttons.
 * @typedef {{
 *   button: (label: string, cls: string, onclick: () => unknown) => HTMLButtonElement,
 *   send: (decision: Decision, showFieldErrors?: (fields: FieldError[]) => void) => Promise<void>,
 *   say: (text: string, problem?: boolean) => void,
 * }} Controls
 */

/** @type {Record<string, string>} */
const DONE = { approve: 'Approved', edit: 'Approved with edits', reject: 'Rejected', respond: 'Answered' };

/** What the toast says once a decision is taken, in the words of the approval's kind. */
const doneWords = (/** @type {string} */ kind) =>
  kind === 'outcome' ? OUTCOME_DONE : kind === 'secret' ? SECRET_DONE : DONE;

// Polled relative to the page, as every call is: the answer's `location` is a path under the
// router's mount (`/api/...`), which the browser would resolve at the site's root.
/**
 * @param {string} trackingId
 * @param {string} requestId
 */
async function pollOutcome(trackingId, requestId) {
  const outcome = `api/approvals/${encodeURIComponent(trackingId)}/decisions/${encodeURIComponent(requestId)}`;
  for (let i = 0; i < 60; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { status } = await api(outcome);
    if (status === 200) return;
  }
  throw new Error('The run has not taken the decision yet; it will when its worker is back.');
}

/**
 * Approve, edit, reject with a reason, or respond: whatever this approval allows. Returns the
 * proposal as the approver works on it (`work`: the arguments editor, the plan, the question) and
 * the `panel` of decision controls, to be shown side by side: the buttons where the eye lands,
 * the arguments they act on beside them. `rule` (why this needs a decision) heads the panel;
 * `onEdit` hears the arguments each time an edit of them reads as valid.
 * @param {Ctx} ctx
 * @param {ApprovalDetail} a
 * @param {(options?: { ownDecision?: boolean }) => Promise<void>} reload
 * @param {{ rule?: HTMLElement, onEdit?: (args: import('../../types/inbox.js').JsonObject) => void }} [options]
 */
export function decisionPanel(ctx, a, reload, { rule, onEdit } = {}) {
  const allowed = new Set(a.allowedDecisions);
  // Problems with what is about to be sent sit right above the buttons that send it.
  const status = h('p', { class: 'form-status', role: 'alert' });
  /** @type {Controls['say']} */
  const say = (text, problem = false) => {
    setText(status, text);
    status.classList.toggle('problem', problem);
  };
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  /** @type {Controls['button']} */
  const button = (label, cls, onclick) => {
    const b = h('button', { type: 'button', class: cls, onclick });
    b.textContent = label;
    buttons.push(b);
    return b;
  };

  /** @type {Controls['send']} */
  async function send(decision, showFieldErrors) {
    say('Sending…');
    for (const b of buttons) b.disabled = true;
    try {
      const { status: code, data } = await api(`api/approvals/${encodeURIComponent(a.trackingId)}/decision`, {
        method: 'POST',
        body: decision,
        headers: {
          'x-countersign-channel': 'inbox',
          'idempotency-key': crypto.randomUUID(),
          // The revision this page shows: a proposal changed since is refused (412), never signed.
          'if-match': `"${a.revision}"`,
        },
      });
      if (code === 202) {
        say('Sent; waiting for the run to take it…');
        await pollOutcome(a.trackingId, /** @type {DecisionSubmitted} */ (data).requestId);
      }
      ctx.toast(doneWords(a.kind)[decision.type]);
      await reload({ ownDecision: true });
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) {
        // Someone changed the proposal while this page was open: show the new one before any button acts.
        ctx.toast(
          'The proposal changed while you were looking: here is the current one. Nothing was decided.',
        );
        await reload();
        return;
      }
      if (err instanceof ApiError && err.fields.length > 0 && showFieldErrors) showFieldErrors(err.fields);
      say(err instanceof Error ? err.message : String(err), true);
      for (const b of buttons) b.disabled = false;
    }
  }

  /** @param {Child[]} work @param {Child[]} actions */
  const layout = (work, actions, heading = 'Your decision') => ({
    work: h('section', { class: 'work', 'aria-label': 'Proposal' }, work),
    panel: h(
      'section',
      { class: 'panel decision', 'aria-label': 'Decision' },
      h('h2', {}, heading),
      rule,
      status,
      actions,
    ),
  });

  if (a.kind === 'outcome') {
    const { work, actions } = outcomeChoices(a, { button, send, say });
    return layout(work, actions, 'What happened?');
  }
  if (a.kind === 'secret') {
    const { work, actions } = secretForm(a, { button, send, say });
    return layout(work, actions, 'Supply or decline');
  }

  /** @type {Child[]} */
  const work = [];
  /** @type {Child[]} */
  const actions = [];
  // Where the policy offers it: approve this call and the later ones like it in the run.
  const standing = standingChoice(a);
  /** @param {Decision} decision */
  const signed = (decision) => (standing ? standing.decide(decision) : decision);
  /** @type {() => Promise<void> | undefined} */
  let approveAction = () => send(signed({ type: 'approve' }));

  if (a.kind === 'call' && allowed.has('edit')) {
    const diff = h('div', { class: 'diff-box', 'aria-live': 'polite' });
    const editor = argsEditor({
      schema: a.schema,
      proposed: a.args,
      editableFields: a.editableFields,
      onChange: () => update(),
    });
    const approveButton = button('Approve', 'primary', () => approveAction());
    const update = () => {
      const { args, errors, changes } = editor.changes();
      editor.showErrors(errors);
      diff.replaceChildren(diffView(changes));
      approveButton.textContent = changes.length > 0 ? 'Approve with edits' : 'Approve';
      approveButton.disabled = changes.length === 0 && !allowed.has('approve');
      if (errors.length === 0 && status.textContent.startsWith('Some arguments')) say('');
      // What the page says of the call (its description, the rule's values) follows a valid edit.
      if (errors.length === 0) onEdit?.(args);
    };
    approveAction = () => {
      const { args, errors, changes } = editor.changes();
      if (errors.length > 0) {
        editor.showErrors(errors);
        say('Some arguments are not valid: see the fields marked in red.', true);
        return;
      }
      if (changes.length === 0) return send(signed({ type: 'approve' }));
      return send(signed({ type: 'edit', args }), (fields) => editor.showErrors(fields));
    };
    work.push(
      h('h2', {}, 'Proposed call'),
      h('p', { class: 'tool' }, h('code', {}, a.tool)),
      // Enter in a field must never approve: deciding takes an explicit press of a button.
      h(
        'form',
        {
          class: 'edit-form',
          'aria-label': 'Edit arguments',
          onsubmit: (/** @type {SubmitEvent} */ e) => e.preventDefault(),
        },
        editor.element,
      ),
      h('h3', {}, 'Changes'),
      diff,
      h(
        'div',
        { class: 'row' },
        button('Reset to proposed', 'secondary', () => {
          editor.reset();
          update();
          say('');
        }),
      ),
    );
    actions.push(standing?.element ?? null, h('div', { class: 'row' }, approveButton));
    update();
  } else if (a.kind === 'plan' && allowed.has('edit')) {
    const tools = ctx.state.agents.find((agent) => agent.name === a.agent)?.tools ?? [];
    const approveButton = button('Approve plan', 'primary', () => approveAction());
    const plan = planEditor({
      proposed: a.plan ?? [],
      tools,
      onChange: () => {
        approveButton.textContent = plan.changed() ? 'Approve edited plan' : 'Approve plan';
      },
    });
    approveAction = () => {
      if (!plan.changed()) return send({ type: 'approve' });
      const current = plan.current();
      if (current.errors.length > 0) {
        plan.showErrors(current.errors);
        say('Some steps are not valid: see the fields marked in red.', true);
        return;
      }
      return send({ type: 'edit', plan: current.plan }, (fields) => plan.showErrors(fields));
    };
    work.push(
      h('h2', {}, 'Plan'),
      plan.element,
      h(
        'div',
        { class: 'row' },
        button('Reset to proposed', 'secondary', () => {
          plan.reset();
          approveButton.textContent = 'Approve plan';
          say('');
        }),
      ),
    );
    actions.push(h('div', { class: 'row' }, approveButton));
  } else {
    if (a.kind === 'question')
      work.push(h('h2', {}, 'Question'), h('p', { class: 'question' }, a.question ?? ''));
    else if (a.kind === 'plan')
      work.push(
        h('h2', {}, 'Plan'),
        h(
          'ol',
          { class: 'plan' },
          (a.plan ?? []).map((step) => h('li', {}, h('code', {}, step.tool), argValues(step.args))),
        ),
      );
    else
      work.push(
        h('h2', {}, 'Proposed call'),
        h('p', { class: 'tool' }, h('code', {}, a.tool)),
        argValues(a.args),
      );
    if (a.kind === 'result') work.push(h('h2', {}, 'Result for review'), h('pre', {}, json(a.result)));
    if (allowed.has('approve'))
      actions.push(
        standing?.element ?? null,
        h(
          'div',
          { class: 'row' },
          button(a.kind === 'result' ? 'Approve result' : 'Approve', 'primary', () => approveAction()),
        ),
      );
  }

  /** @type {HTMLElement | null} */
  let respond = null;
  if (allowed.has('respond')) {
    const id = `respond-${a.trackingId}`;
    const label =
      a.kind === 'question'
        ? 'Your answer'
        : a.kind === 'result'
          ? 'Corrected result (JSON or text)'
          : 'Answer in the tool’s place (JSON or text)';
    // A question with choices takes one of them; anything else is free text or JSON.
    const choices = a.kind === 'question' && Array.isArray(a.schema?.enum) ? a.schema.enum : null;
    const area = choices
      ? h(
          'select',
          { id },
          choices.map((c) => h('option', { value: String(c) }, String(c))),
        )
      : h('textarea', {
          id,
          rows: 3,
          value: a.kind === 'result' && a.result !== undefined ? json(a.result) : '',
        });
    const parts = [
      h('label', { for: id }, label),
      area,
      h(
        'div',
        { class: 'row' },
        button(a.kind === 'question' ? 'Send answer' : 'Respond', 'primary', () =>
          send({ type: 'respond', result: answerValue(area.value, a.schema) }),
        ),
      ),
    ];
    // Answering in a tool's place is the rare choice for a call: folded, below approve and reject.
    respond =
      a.kind === 'call'
        ? h('details', { class: 'respond' }, h('summary', {}, 'Answer in the tool’s place instead'), parts)
        : h('div', { class: 'respond' }, parts);
    if (a.kind !== 'call') actions.push(respond);
  }

  if (allowed.has('reject')) {
    const id = `reason-${a.trackingId}`;
    const area = h('textarea', { id, rows: 2, maxlength: 4000 });
    actions.push(
      h(
        'div',
        { class: 'reject' },
        h('label', { for: id }, 'Reason to reject (the model is told, and must not retry the call)'),
        area,
        h(
          'div',
          { class: 'row' },
          button('Reject', 'danger', () =>
            send(area.value.trim() ? { type: 'reject', message: area.value.trim() } : { type: 'reject' }),
          ),
        ),
      ),
    );
  }
  if (respond && a.kind === 'call') actions.push(respond);

  return layout(work, actions);
}
