import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser, type ParsedMail } from 'mailparser';

/** Waits for the approval email sent to `address` that names `trackingId`, and parses it. */
export async function waitForEmail(
  dataDir: string,
  address: string,
  trackingId: string,
  timeoutMs = 120_000,
): Promise<ParsedMail> {
  const outbox = path.join(dataDir, 'outbox');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(outbox)) {
      for (const name of readdirSync(outbox).filter((n) => n.endsWith('.eml'))) {
        const mail = await simpleParser(readFileSync(path.join(outbox, name)));
        const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
        if (to.some((t) => t.value.some((v) => v.address === address)) && mail.text?.includes(trackingId))
          return mail;
      }
    }
    await sleep(200);
  }
  throw new Error(`no email to ${address} about ${trackingId} in ${outbox}`);
}

/** The signed link tokens in an email, by action. */
export function linkTokens(mail: ParsedMail): { approve?: string; reject?: string } {
  const found: { approve?: string; reject?: string } = {};
  for (const match of (mail.text ?? '').matchAll(/^(Approve|Reject): \S+\/links\/(\S+)$/gm)) {
    found[match[1]!.toLowerCase() as 'approve' | 'reject'] = match[2]!;
  }
  return found;
}
