// @ts-check
/* global document, Node */
// Builds DOM from data without ever parsing it as HTML: arguments and transcripts are
// attacker-controlled, so text only ever goes in through text nodes and attributes.

/** @typedef {import('../types/inbox.js').Child} Child */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [attrs] attributes; `on…` functions are listeners
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function')
      el.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else if (key === 'class') el.className = String(value);
    else if (key === 'value') /** @type {HTMLInputElement} */ (el).value = String(value);
    else if (key === 'checked') /** @type {HTMLInputElement} */ (el).checked = Boolean(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/**
 * Bidirectional controls: marks (U+061C, U+200E, U+200F), embeddings and overrides
 * (U+202A–U+202E) and isolates (U+2066–U+2069). Shown as they are, they reorder the text around
 * them (U+202E makes `exe.txt` read `txt.exe`), so an approver could read other arguments than
 * those that run.
 */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const BIDI_NAMES = /** @type {Record<string, string>} */ ({
  '\u061c': 'ARABIC LETTER MARK',
  '\u200e': 'LEFT-TO-RIGHT MARK',
  '\u200f': 'RIGHT-TO-LEFT MARK',
  '\u202a': 'LEFT-TO-RIGHT EMBEDDING',
  '\u202b': 'RIGHT-TO-LEFT EMBEDDING',
  '\u202c': 'POP DIRECTIONAL FORMATTING',
  '\u202d': 'LEFT-TO-RIGHT OVERRIDE',
  '\u202e': 'RIGHT-TO-LEFT OVERRIDE',
  '\u2066': 'LEFT-TO-RIGHT ISOLATE',
  '\u2067': 'RIGHT-TO-LEFT ISOLATE',
  '\u2068': 'FIRST STRONG ISOLATE',
  '\u2069': 'POP DIRECTIONAL ISOLATE',
});

/** A bidirectional control as protocol/visible-text.ts writes it for the terminal and email: `\u202e`. */
const escaped = (/** @type {string} */ char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Whether text holds a bidirectional control. @param {unknown} text */
export const hasBidi = (text) => typeof text === 'string' && text.search(BIDI) >= 0;

/**
 * Text with each bidirectional control written as its escape, for places that take plain text only (input values, titles).
 * @param {unknown} text
 */
export const bidiEscaped = (text) => String(text).replace(BIDI, escaped);

/**
 * Text as nodes, every bidirectional control replaced by a visible, marked `\u202e`: seen, never
 * obeyed, as the CLI and the email show it (protocol/visible-text.ts).
 * @param {unknown} text
 * @returns {Text | DocumentFragment}
 */
export function visible(text) {
  const value = String(text);
  if (!hasBidi(value)) return document.createTextNode(value);
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of value.matchAll(BIDI)) {
    if (match.index > last) fragment.append(value.slice(last, match.index));
    const char = match[0];
    fragment.append(
      h(
        'span',
        {
          class: 'bidi-mark',
          title: `Hidden direction control U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} ${BIDI_NAMES[char]}: shown here, not applied`,
        },
        escaped(char),
      ),
    );
    last = match.index + char.length;
  }
  if (last < value.length) fragment.append(value.slice(last));
  return fragment;
}

/**
 * @template {Element | DocumentFragment} E
 * @param {E} el
 * @param {Child[]} children
 */
export function append(el, children) {
  for (const child of /** @type {unknown[]} */ (children).flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : visible(child));
  }
  return el;
}

/**
 * Replaces an element's text, marking bidirectional controls as `append` does.
 * @template {Element} E
 * @param {E} el
 * @param {unknown} text
 */
export function setText(el, text) {
  el.replaceChildren(visible(text ?? ''));
  return el;
}

/**
 * @template {Element} E
 * @param {E} el
 */
export function clear(el) {
  el.replaceChildren();
  return el;
}

/** @param {unknown} value */
export function json(value) {
  return JSON.stringify(value, null, 2);
}

/** @param {string | undefined} iso */
export function when(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

/**
 * A moment as a `<time>` element, machine-readable as well as shown.
 * @param {string | undefined} iso
 */
export function time(iso) {
  return h('time', { datetime: iso }, when(iso));
}

/** @param {string} status */
export function statusChip(status) {
  return h('span', { class: `chip chip-${String(status).replace(/[^a-z]/g, '')}` }, status);
}
