// @ts-check
import { api } from '../api.js';
import { h, setText, when } from '../dom.js';

/**
 * Pause, resume and cancel for one run. The fields and buttons are made once and placed again on
 * each render of the run view, so a correction being typed survives the run's news, and a button
 * about to be clicked is never swapped for a copy.
 * @param {import('../../types/inbox.js').Ctx} ctx
 * @param {string} runId
 * @param {() => Promise<void>} reload
 */
export function runControls(ctx, runId, reload) {
  const path = (/** @type {string} */ action) => `api/runs/${encodeURIComponent(runId)}/${action}`;
  const status = h('p', { class: 'form-status', role: 'alert' });
  /**
   * @param {string} action
   * @param {{ message?: string } | undefined} body
   * @param {string} done
   */
  const send = async (action, body, done) => {
    try {
      // The audit trail records who did it, and through which channel.
      await api(path(action), { method: 'POST', body, headers: { 'x-countersign-channel': 'inbox' } });
      setText(status, '');
      ctx.toast(done);
      await reload();
    } catch (err) {
      setText(status, err instanceof Error ? err.message : err);
    }
  };
  const optional = (/** @type {HTMLInputElement | HTMLTextAreaElement} */ field) =>
    field.value.trim() ? { message: field.value.trim() } : {};

  const reason = h('input', { id: 'pause-message', name: 'message', maxlength: 2000, autocomplete: 'off' });
  const correction = h('textarea', { id: 'resume-message', name: 'message', rows: 2, maxlength: 2000 });
  const pause = h(
    'button',
    {
      type: 'button',
      onclick: () =>
        send('pause', optional(reason), 'Pausing the run').then(() => {
          if (!status.textContent) reason.value = '';
        }),
    },
    'Pause run',
  );
  const resume = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: () =>
        send('resume', optional(correction), 'Resuming the run').then(() => {
          if (!status.textContent) correction.value = '';
        }),
    },
    'Resume run',
  );
  const cancel = h(
    'button',
    { type: 'button', class: 'danger', onclick: () => send('cancel', undefined, 'Cancelling the run') },
    'Cancel run',
  );
  const pauseRow = h('div', { class: 'row' }, pause, cancel);
  const pauseForm = h(
    'div',
    { class: 'panel run-control', role: 'group', 'aria-label': 'Pause the run' },
    h('label', { for: 'pause-message' }, 'Why pause (optional)'),
    reason,
    pauseRow,
  );
  const pausedBy = h('p', { class: 'paused-by' });
  const resumeRow = h('div', { class: 'row' }, resume, cancel);
  const resumeForm = h(
    'div',
    { class: 'panel run-control', role: 'group', 'aria-label': 'Resume the run' },
    pausedBy,
    h(
      'label',
      { for: 'resume-message' },
      'Correction for the agent (optional): it reads this before its next step',
    ),
    correction,
    resumeRow,
  );

  /**
   * The controls for the run as it is now; none once it has ended.
   * @param {import('../../types/inbox.js').RunDetail} run
   */
  return (run) => {
    if (run.status === 'paused') {
      const paused = run.audit.findLast((e) => e.type === 'run.paused');
      setText(
        pausedBy,
        paused
          ? `Paused by ${paused.actor ?? 'unknown'} via ${paused.channel ?? 'unknown'}, ${when(paused.at)}${paused.message ? `: “${paused.message}”` : ''}. Approvals stay decidable; a decided call runs after the resume.`
          : 'Paused.',
      );
      // The cancel button lives in whichever form shows.
      resumeRow.append(cancel);
      return [resumeForm, status];
    }
    if (run.status === 'running' || run.status === 'waiting') {
      pauseRow.append(cancel);
      return [pauseForm, status];
    }
    return null;
  };
}
