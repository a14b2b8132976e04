// @ts-check
import { apiText } from '../api.js';
import { h, setText } from '../dom.js';

/**
 * Outputs a reader opened, by run and reference, as the promise of their text: a live run's view is
 * drawn again on each of its events, and an output being read must stay open (and not be fetched
 * again) across those redraws. Hiding one forgets it.
 */
/** @type {Map<string, Promise<string>>} */
const opened = new Map();

const keyOf = (/** @type {string} */ runId, /** @type {string} */ ref) => `${runId}\n${ref}`;

/**
 * A tool output the workers kept in the content store, outside Temporal's history: the run holds
 * its reference and size, and "Show output" reads the text from the API, for whoever may read the run.
 * @param {string} runId
 * @param {{ ref: string, bytes: number }} output
 * @param {string} toolCallId
 */
export function storedOutputView(runId, { ref, bytes }, toolCallId) {
  const key = keyOf(runId, ref);
  const text = h('pre', {
    class: 'stored-output-text',
    tabindex: 0,
    hidden: true,
    'aria-label': `Stored output of ${toolCallId}`,
  });
  const problem = h('p', { class: 'form-status problem', role: 'alert' });
  const button = h(
    'button',
    { type: 'button', 'aria-expanded': 'false', onclick: () => toggle() },
    'Show output',
  );

  /** @param {boolean} open */
  function setOpen(open) {
    text.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    setText(button, open ? 'Hide output' : 'Show output');
  }

  async function show() {
    let reading = opened.get(key);
    if (!reading) {
      reading = apiText(`api/runs/${encodeURIComponent(runId)}/outputs/${encodeURIComponent(ref)}`);
      opened.set(key, reading);
    }
    button.disabled = true;
    setText(button, 'Loading…');
    setText(problem, '');
    try {
      // Text nodes only (setText), never parsed as HTML: a tool's output is anyone's text.
      setText(text, await reading);
      setOpen(true);
    } catch (err) {
      opened.delete(key);
      setText(problem, `Could not read the output: ${err instanceof Error ? err.message : err}`);
      setOpen(false);
    } finally {
      button.disabled = false;
    }
  }

  function toggle() {
    if (text.hidden) return show();
    opened.delete(key);
    setText(text, '');
    setOpen(false);
  }

  if (opened.has(key)) void show();
  return h(
    'div',
    { class: 'stored-output' },
    h(
      'p',
      { class: 'muted' },
      `Output of ${Number(bytes).toLocaleString()} bytes, kept in the worker's content store (`,
      h('code', {}, String(ref)),
      '); the model read it whole.',
    ),
    h('div', { class: 'row' }, button),
    problem,
    text,
  );
}
