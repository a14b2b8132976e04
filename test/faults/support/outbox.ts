import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser, type ParsedMail } from 'mailparser';

/** The approval email sent to `address` that names `trackingId`, parsed, if it is in `dataDir`'s outbox. */
export async function findEmail(
  dataDir: string,
  address: string,
  trackingId: string,
): Promise<ParsedMail | undefined> {
  const outbox = path.join(dataDir, 'outbox');
  if (!existsSync(outbox)) return undefined;
  for (const name of readdirSync(outbox).filter((n) => n.endsWith('.eml'))) {
    const mail = await simpleParser(readFileSync(path.join(outbox, name)));
    const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
    if (to.some((t) => t.value.some((v) => v.address === address)) && mail.text?.includes(trackingId))
      return mail;
  }
  return undefined;
}

/**
 * Waits for the approval email sent to `address` that names `trackingId`, in the outbox of any of
 * `dataDirs` (several instances' workers each write their own), and says whose it was.
 */
export async function waitForEmailIn(
  dataDirs: readonly string[],
  address: string,
  trackingId: string,
  timeoutMs = 120_000,
): Promise<{ mail: ParsedMail; dataDir: string }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const dataDir of dataDirs) {
      const mail = await findEmail(dataDir, address, trackingId);
      if (mail) return { mail, dataDir };
    }
    await sleep(200);
  }
  throw new Error(`no email to ${address} about ${trackingId} in ${dataDirs.join(', ')}`);
}

/** Waits for the approval email sent to `address` that names `trackingId`, and parses it. */
export async function waitForEmail(
  dataDir: string,
  address: string,
  trackingId: string,
  timeoutMs = 120_000,
): Promise<ParsedMail> {
  return (await waitForEmailIn([dataDir], address, trackingId, timeoutMs)).mail;
}

/** The signed link tokens in an email, by action. */
export function linkTokens(mail: ParsedMail): { approve?: string; reject?: string } {
  const found: { approve?: string; reject?: string } = {};
  for (const match of (mail.text ?? '').matchAll(/^(Approve|Reject): \S+\/links\/(\S+)$/gm)) {
    found[match[1]!.toLowerCase() as 'approve' | 'reject'] = match[2]!;
  }
  return found;
}
