// @ts-check
import { argsEditor, diffView } from '../args-editor.js';
import { h, setText } from '../dom.js';

/** @typedef {import('../../types/inbox.js').FieldError} FieldError */
/** @typedef {import('../../types/inbox.js').PlanStep} PlanStep */
/** @typedef {import('../../types/inbox.js').ToolSpec} ToolSpec */
/** A step's problem: ours name the step, the server's name it in their path. @typedef {FieldError & { step?: number }} StepError */
/**
 * @typedef {{
 *   tool: string,
 *   toolCallId?: string,
 *   addedBy?: string,
 *   proposed: import('../../types/inbox.js').JsonObject,
 *   diff: HTMLElement,
 *   error: HTMLElement,
 *   editor: ReturnType<typeof argsEditor>,
 * }} Step
 */

/**
 * Plan review: the calls of one turn as one list a human may reorder, cut, edit, or extend with
 * other tools of the agent, before any of them runs. Each step's arguments are a form generated
 * from its tool's schema, as for a single call: a multi-line string (a SQL query) reads and edits
 * as the lines it holds.
 * @param {{ proposed: PlanStep[], tools: ToolSpec[], onChange?: () => void }} options
 */
export function planEditor({ proposed, tools, onChange }) {
  const list = h('ol', { class: 'plan' });
  const general = h('p', { class: 'field-error', 'aria-live': 'polite' });
  const toolOf = (/** @type {string} */ name) => tools.find((t) => t.name === name);

  /**
   * @param {PlanStep} proposedStep
   * @returns {Step}
   */
  function makeStep({ tool, args, toolCallId, addedBy }) {
    const spec = toolOf(tool);
    /** @type {Step} */
    const step = {
      tool,
      toolCallId,
      addedBy,
      proposed: args,
      diff: h('div', { class: 'diff-box step-diff', 'aria-live': 'polite' }),
      error: h('p', { class: 'field-error' }),
      editor: argsEditor({
        schema: spec?.parameters,
        proposed: args,
        // A step the model proposed keeps the fields its tool's policy locks; a step a human adds is theirs to fill.
        editableFields: toolCallId ? spec?.approval?.editableFields : undefined,
        onChange: () => {
          showDiff(step);
          onChange?.();
        },
      }),
    };
    showDiff(step);
    return step;
  }

  /** @param {Step} step */
  function showDiff(step) {
    if (!step.toolCallId) return step.diff.replaceChildren();
    const { changes } = step.editor.changes();
    step.diff.replaceChildren(changes.length ? diffView(changes) : '');
  }

  let steps = proposed.map(makeStep);

  function render() {
    list.replaceChildren(
      ...steps.map((step, i) => {
        const move = (/** @type {number} */ delta) => () => {
          const j = i + delta;
          if (j < 0 || j >= steps.length) return;
          [steps[i], steps[j]] = [steps[j], steps[i]];
          render();
          onChange?.();
        };
        return h(
          'li',
          { class: 'plan-step' },
          h(
            'fieldset',
            {},
            h(
              'legend',
              {},
              `Step ${i + 1}: `,
              h('code', {}, step.tool),
              step.toolCallId
                ? ''
                : [' ', h('span', { class: 'chip' }, step.addedBy ? `added by ${step.addedBy}` : 'added')],
            ),
            step.editor.element,
            step.diff,
            step.error,
            h(
              'div',
              { class: 'row' },
              h(
                'button',
                {
                  type: 'button',
                  onclick: move(-1),
                  disabled: i === 0,
                  'aria-label': `Move step ${i + 1} up`,
                },
                '↑ Up',
              ),
              h(
                'button',
                {
                  type: 'button',
                  onclick: move(1),
                  disabled: i === steps.length - 1,
                  'aria-label': `Move step ${i + 1} down`,
                },
                '↓ Down',
              ),
              h(
                'button',
                {
                  type: 'button',
                  onclick: () => {
                    steps.splice(i, 1);
                    render();
                    onChange?.();
                  },
                  'aria-label': `Remove step ${i + 1}`,
                },
                'Remove',
              ),
            ),
          ),
        );
      }),
    );
  }

  // A reviewer adds only calls they could have edited into being: a tool whose policy allows no
  // edit is approved, cut or reordered, never re-added (the run refuses it too).
  const addable = tools.filter((t) => t.safe || (t.approval?.decisions ?? ['edit']).includes('edit'));
  const picker = h(
    'select',
    { id: 'plan-add-tool' },
    addable.map((t) => h('option', { value: t.name }, t.name)),
  );
  const add = h(
    'div',
    { class: 'row' },
    h('label', { for: 'plan-add-tool' }, 'Add a step calling'),
    picker,
    h(
      'button',
      {
        type: 'button',
        onclick: () => {
          steps.push(makeStep({ tool: picker.value, args: {} }));
          render();
          onChange?.();
        },
      },
      'Add step',
    ),
  );

  function current() {
    /** @type {StepError[]} */
    const errors = [];
    const plan = steps.map((step, i) => {
      const { args, errors: stepErrors } = step.editor.current();
      for (const e of stepErrors) errors.push({ step: i, path: e.path, message: e.message });
      return step.toolCallId
        ? { tool: step.tool, args, toolCallId: step.toolCallId }
        : { tool: step.tool, args };
    });
    return { plan, errors };
  }

  const original = JSON.stringify(
    proposed.map(({ tool, args, toolCallId }) => (toolCallId ? { tool, args, toolCallId } : { tool, args })),
  );

  render();
  return {
    element: h('div', { class: 'plan-editor' }, list, add, general),
    current,
    changed: () => JSON.stringify(current().plan) !== original,
    /**
     * Errors beside their step and field: ours name the step, the server's name it in their path
     * (`plan.<i>.args.<field>` or `/plan/<i>/args/<field>`).
     * @param {StepError[]} errors
     */
    showErrors(errors) {
      /** @type {{ fields: FieldError[], other: string[] }[]} */
      const byStep = steps.map(() => ({ fields: [], other: [] }));
      /** @type {string[]} */
      const other = [];
      for (const e of errors) {
        let step = e.step;
        let path = e.path ?? '';
        const match = /^\/?plan[./](\d+)(?:[./](.*))?$/.exec(path);
        if (step === undefined && match) {
          step = Number(match[1]);
          path = match[2] ?? '';
        }
        if (step === undefined || !byStep[step]) {
          other.push(e.path ? `${e.path}: ${e.message}` : e.message);
          continue;
        }
        const field = /^args(?:[./](.*))?$/.exec(path);
        if (field && field[1]) byStep[step].fields.push({ path: field[1], message: e.message });
        else if (step === e.step && path) byStep[step].fields.push({ path, message: e.message });
        else byStep[step].other.push(path ? `${path} ${e.message}` : e.message);
      }
      steps.forEach((step, i) => {
        step.editor.showErrors(byStep[i].fields);
        setText(step.error, byStep[i].other.join('; '));
      });
      setText(general, other.join('; '));
    },
    reset() {
      steps = proposed.map(makeStep);
      render();
      setText(general, '');
    },
  };
}
