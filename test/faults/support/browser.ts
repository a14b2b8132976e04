import type { Page } from 'playwright-core';

export { launchChromium } from '../../support/chromium.js';

// Page code is passed as source text: it runs in the browser, and this project compiles without DOM types.

/** Markup the payload would have created had it been interpreted rather than shown as text. */
export function injectedMarkup(page: Page): Promise<{ pwned: unknown; elements: number }> {
  return page.evaluate(`({
    pwned: window.__pwned,
    elements: document.querySelectorAll('img[src="x"], svg[onload], [onerror], a[href^="javascript:"], script:not([src])').length,
  })`);
}

const TEXT_SOURCE = `[document.body.innerText, ...[...document.querySelectorAll('textarea, input')].map((el) => el.value)].join('\\n')`;

/** All the text a person sees, form fields included (arguments may sit in an editor). */
export function visibleText(page: Page): Promise<string> {
  return page.evaluate(TEXT_SOURCE);
}

/**
 * Waits until the page shows `text`, in its body or in a form field. Polled from here: the inbox's
 * CSP forbids the string evaluation that waitForFunction would do inside the page.
 */
export async function waitForText(page: Page, text: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await visibleText(page)).includes(text)) {
    if (Date.now() > deadline) throw new Error(`the page never showed ${JSON.stringify(text)}`);
    await page.waitForTimeout(100);
  }
}
