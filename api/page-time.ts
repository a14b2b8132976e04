import { createHash } from 'node:crypto';
import { escapeHtml } from '../notify/html.js';

/**
 * Times on the email link pages. The server cannot know the approver's time zone, so a time is
 * written in UTC with the zone named (read right without JavaScript), inside a `<time datetime>`
 * that this page's one script rewrites in the browser's own zone. The script is fixed text, allowed
 * by its hash alone: nothing from the run ever reaches it.
 */

const UTC = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** `<time datetime="…">Thu 26 Nov 2026, 10:00 UTC</time>`, shown in the reader's zone where scripts run. */
export function timeHtml(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return escapeHtml(iso);
  return `<time datetime="${escapeHtml(at.toISOString())}" data-local>${escapeHtml(`${UTC.format(at)} UTC`)}</time>`;
}

/** Rewrites each `time[data-local]` in the browser's zone, naming it; the UTC text stays as its title. */
export const LOCAL_TIME_SCRIPT =
  "for(const t of document.querySelectorAll('time[data-local]')){const d=new Date(t.dateTime);" +
  "if(isNaN(d))continue;t.title=t.textContent;t.textContent=d.toLocaleString(undefined,{weekday:'short'," +
  "day:'numeric',month:'short',year:'numeric',hour:'2-digit',minute:'2-digit',timeZoneName:'short'})}";

/** The Content-Security-Policy source that allows that script, and no other. */
export const LOCAL_TIME_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(LOCAL_TIME_SCRIPT).digest('base64')}'`;
