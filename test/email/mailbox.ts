import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server for tests: every message it receives, parsed. */
export interface Mailbox {
  url: string;
  messages: ParsedMail[];
  /** Waits for a message matching `predicate`. */
  waitFor(predicate: (mail: ParsedMail) => boolean): Promise<ParsedMail>;
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const messages: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
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
