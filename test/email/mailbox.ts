import { readFileSync, readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { waitFor } from '../support/wait-for.js';

/** A real SMTP server for tests: every message it receives, parsed. */
export interface Mailbox {
  url: string;
  messages: ParsedMail[];
  /** Every recipient a client named (RCPT TO), accepted or not, in order. */
  recipients: string[];
  /** Waits for a message matching `predicate`. */
  waitFor(predicate: (mail: ParsedMail) => boolean): Promise<ParsedMail>;
  close(): Promise<void>;
}

/**
 * `refuse` answers a recipient with an SMTP error code (550: no such mailbox, 451: try later), given
 * how many times that recipient was named before; undefined accepts it.
 */
export async function startMailbox(
  refuse: (address: string, earlier: number) => number | undefined = () => undefined,
): Promise<Mailbox> {
  const messages: ParsedMail[] = [];
  const recipients: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo({ address }, _session, callback) {
      const code = refuse(address, recipients.filter((r) => r === address).length);
      recipients.push(address);
      if (code === undefined) return callback();
      callback(Object.assign(new Error(`refused ${address}`), { responseCode: code }));
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    recipients,
    async waitFor(predicate) {
      for (;;) {
        const found = messages.find(predicate);
        if (found) return found;
        await sleep(50);
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export function recipient(mail: ParsedMail): string {
  const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
  return to?.value[0]?.address ?? '';
}

/** The link after `label:` in the plain-text part. */
export function linkIn(mail: ParsedMail, label: 'Approve' | 'Reject' | 'Open in the inbox'): string {
  const match = new RegExp(`^${label}: (\\S+)$`, 'm').exec(mail.text ?? '');
  if (!match) throw new Error(`no ${label} link in mail: ${mail.text}`);
  return match[1]!;
}

/** The link under `label:` in the plain-text part, as an outcome email lays its answers out. */
export function answerLinkIn(mail: ParsedMail, label: string): string {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`^${escaped}:\\n {2}(\\S+)$`, 'm').exec(mail.text ?? '');
  if (!match) throw new Error(`no "${label}" link in mail: ${mail.text}`);
  return match[1]!;
}

/**
 * The mail for `trackingId` to `recipient` in a data directory's outbox, once it is finished: a
 * message is written aside (`.partial`) and then renamed, so a half-written one is never read.
 */
export async function outboxMail(
  dataDir: string,
  trackingId: string,
  recipient: string,
): Promise<ParsedMail> {
  const outbox = path.join(dataDir, 'outbox');
  const file = await waitFor(
    async () =>
      readdirSync(outbox).find((f) => f.endsWith('.eml') && f.includes(trackingId) && f.includes(recipient)),
    `${recipient}'s email`,
  );
  return simpleParser(readFileSync(path.join(outbox, file)));
}
