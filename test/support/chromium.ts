import { execFileSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

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
