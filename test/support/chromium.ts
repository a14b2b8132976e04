import { execFileSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (`which chromium`), never a downloaded browser, with everything that phones home turned off. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? execFileSync('which', ['chromium']).toString().trim(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

/** Signs in to the inbox at `url` with an approver's token, and waits for the inbox to show. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Approver token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
}

/**
 * Opens a run's view and waits until it is that run's: a hash change keeps the page, and until the
 * new view is read the one shown before (another run's, with the same headings) is still there.
 */
export async function openRun(page: Page, url: string, runId: string): Promise<void> {
  await page.goto(`${url}/#/runs/${encodeURIComponent(runId)}`);
  await page.locator('h1 code', { hasText: runId }).waitFor();
  await page.locator('main:not([aria-busy])').waitFor();
}

/** A browser with one page signed in to the inbox at `url`, its live event stream connected. */
export async function openInbox(
  url: string,
  token: string,
  viewport?: { width: number; height: number },
): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage(viewport ? { viewport } : {});
    page.setDefaultTimeout(30_000);
    await signIn(page, url, token);
    await page.locator('#live', { hasText: 'live' }).waitFor();
    return { browser, page };
  } catch (err) {
    await browser.close();
    throw err;
  }
}
