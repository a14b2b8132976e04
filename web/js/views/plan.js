import { h, json } from '../dom.js';
import { validate } from '../validate.js';

/**
 * Plan review: the calls of one turn as one list a human may reorder, cut, edit, or extend with
 * other tools of the agent, before any of them runs.
 */
export function planEditor({ proposed, tools, onChange }) {
  let steps = proposed.map((s) => ({ ...s, text: json(s.args) }));
  const list = h('ol', { class: 'plan' });
  const general = h('p', { class: 'field-error', 'aria-live': 'polite' });
  const schemaOf = (tool) => tools.find((t) => t.name === tool)?.parameters;

  function render(errors = []) {
    list.replaceChildren(
      ...steps.map((step, i) => {
        const id = `plan-step-${i}`;
        const stepErrors = errors.filter((e) => e.step === i).map((e) => e.message);
        const area = h('textarea', {
          id,
          rows: 4,
          spellcheck: 'false',
          'aria-describedby': `${id}-error`,
          'aria-invalid': stepErrors.length > 0 ? 'true' : 'false',
          value: step.text,
          oninput: (e) => {
            step.text = e.target.value;
            onChange?.();
          },
        });
        const move = (delta) => () => {
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
            'label',
            { for: id },
            `Step ${i + 1}: `,
            h('code', {}, step.tool),
            step.toolCallId ? '' : h('span', { class: 'chip' }, 'added'),
          ),
          area,
          h('p', { id: `${id}-error`, class: 'field-error' }, stepErrors.join('; ')),
          h(
            'div',
            { class: 'row' },
            h(
              'button',
              { type: 'button', onclick: move(-1), disabled: i === 0, 'aria-label': `Move step ${i + 1} up` },
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
        );
      }),
    );
  }

  const picker = h(
    'select',
    { id: 'plan-add-tool' },
    tools.map((t) => h('option', { value: t.name }, t.name)),
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
          steps.push({ tool: picker.value, args: {}, text: '{}' });
          render();
          onChange?.();
        },
      },
      'Add step',
    ),
  );

  function current() {
    const errors = [];
    const plan = steps.map((step, i) => {
      let args;
      try {
        args = JSON.parse(step.text);
      } catch {
        errors.push({ step: i, message: 'not valid JSON' });
        return { tool: step.tool, args: {} };
      }
      for (const e of validate(schemaOf(step.tool), args))
        errors.push({ step: i, message: `${e.path || 'arguments'} ${e.message}` });
      return step.toolCallId
        ? { tool: step.tool, args, toolCallId: step.toolCallId }
        : { tool: step.tool, args };
    });
    return { plan, errors };
  }

  render();
  return {
    element: h('div', { class: 'plan-editor' }, list, add, general),
    current,
    changed: () =>
      JSON.stringify(current().plan) !==
      JSON.stringify(
        proposed.map(({ tool, args, toolCallId }) =>
          toolCallId ? { tool, args, toolCallId } : { tool, args },
        ),
      ),
    /** Server errors name steps as `plan.<i>.…`. */
    showErrors(errors) {
      const mapped = [];
      const other = [];
      for (const e of errors) {
        const match = /^plan[./](\d+)[./]?(.*)$/.exec(e.path ?? '');
        if (match) mapped.push({ step: Number(match[1]), message: `${match[2] || 'step'} ${e.message}` });
        else if (e.step !== undefined) mapped.push(e);
        else other.push(e.path ? `${e.path}: ${e.message}` : e.message);
      }
      render(mapped);
      general.textContent = other.join('; ');
    },
    reset() {
      steps = proposed.map((s) => ({ ...s, text: json(s.args) }));
      render();
      general.textContent = '';
    },
  };
}
