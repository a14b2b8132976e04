import { api, ApiError } from '../api.js';
import { argsEditor, diffArgs, diffView } from '../args-editor.js';
import { h, json } from '../dom.js';
import { planEditor } from './plan.js';

const DONE = { approve: 'Approved', edit: 'Approved with edits', reject: 'Rejected', respond: 'Answered' };

async function pollOutcome(location) {
  for (let i = 0; i < 60; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { status } = await api(location);
    if (status === 200) return;
  }
  throw new Error('The run has not taken the decision yet; it will when its worker is back.');
}

/** Free text, or JSON when it parses as JSON. */
function answerValue(text, schema) {
  if (schema?.type === 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Approve, edit, reject with a reason, or respond: whatever this approval allows. */
export function decisionPanel(ctx, a, reload) {
  const allowed = new Set(a.allowedDecisions);
  const status = h('p', { class: 'form-status', role: 'alert' });
  const buttons = [];
  const button = (label, cls, onclick) => {
    const b = h('button', { type: 'button', class: cls, onclick });
    b.textContent = label;
    buttons.push(b);
    return b;
  };

  async function send(decision, showFieldErrors) {
    status.textContent = 'Sending…';
    for (const b of buttons) b.disabled = true;
    try {
      const { status: code, data } = await api(
        `/api/approvals/${encodeURIComponent(a.trackingId)}/decision`,
        {
          method: 'POST',
          body: decision,
          headers: {
            'x-countersign-channel': 'inbox',
            'idempotency-key': crypto.randomUUID(),
            // The revision this page shows: a proposal changed since is refused (412), never signed.
            'if-match': `"${a.revision}"`,
          },
        },
      );
      if (code === 202) {
        status.textContent = 'Sent; waiting for the run to take it…';
        await pollOutcome(data.location);
      }
      ctx.toast(DONE[decision.type]);
      await reload();
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
      status.textContent = err.message;
      for (const b of buttons) b.disabled = false;
    }
  }

  const sections = [];
  let approveAction = () => send({ type: 'approve' });

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
      const { args, errors } = editor.current();
      editor.showErrors(errors);
      const changes = diffArgs(a.args, args);
      diff.replaceChildren(diffView(changes));
      approveButton.textContent = changes.length > 0 ? 'Approve with edits' : 'Approve';
      approveButton.disabled = changes.length === 0 && !allowed.has('approve');
    };
    approveAction = () => {
      const { args, errors } = editor.current();
      if (errors.length > 0) {
        editor.showErrors(errors);
        status.textContent = 'Some arguments are not valid: see the fields above.';
        return;
      }
      if (diffArgs(a.args, args).length === 0) return send({ type: 'approve' });
      return send({ type: 'edit', args }, (fields) => editor.showErrors(fields));
    };
    sections.push(
      h('h2', {}, 'Arguments'),
      // Enter in a field must never approve: deciding takes an explicit press of a button.
      h(
        'form',
        { class: 'edit-form', 'aria-label': 'Edit arguments', onsubmit: (e) => e.preventDefault() },
        editor.element,
      ),
      h('h3', {}, 'Changes'),
      diff,
      h(
        'div',
        { class: 'row' },
        approveButton,
        button('Reset to proposed', 'secondary', () => {
          editor.reset();
          update();
          status.textContent = '';
        }),
      ),
    );
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
        status.textContent = 'Some steps are not valid: see above.';
        return;
      }
      return send({ type: 'edit', plan: current.plan }, (fields) => plan.showErrors(fields));
    };
    sections.push(
      h('h2', {}, 'Plan'),
      plan.element,
      h(
        'div',
        { class: 'row' },
        approveButton,
        button('Reset to proposed', 'secondary', () => {
          plan.reset();
          approveButton.textContent = 'Approve plan';
        }),
      ),
    );
  } else if (allowed.has('approve')) {
    sections.push(
      h(
        'div',
        { class: 'row' },
        button(a.kind === 'result' ? 'Approve result' : 'Approve', 'primary', () => approveAction()),
      ),
    );
  }

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
    sections.push(
      h('h2', {}, a.kind === 'question' ? 'Answer' : 'Respond'),
      h('label', { for: id }, label),
      area,
      h(
        'div',
        { class: 'row' },
        button(a.kind === 'question' ? 'Send answer' : 'Respond', 'primary', () =>
          send({ type: 'respond', result: answerValue(area.value, a.schema) }),
        ),
      ),
    );
  }

  if (allowed.has('reject')) {
    const id = `reason-${a.trackingId}`;
    const area = h('textarea', { id, rows: 2, maxlength: 4000 });
    sections.push(
      h('h2', {}, 'Reject'),
      h('label', { for: id }, 'Reason (the model is told, and must not retry the call)'),
      area,
      h(
        'div',
        { class: 'row' },
        button('Reject', 'danger', () =>
          send(area.value.trim() ? { type: 'reject', message: area.value.trim() } : { type: 'reject' }),
        ),
      ),
    );
  }

  return h('section', { class: 'panel', 'aria-label': 'Decision' }, sections, status);
}
