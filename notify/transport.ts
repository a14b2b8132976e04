import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';

/**
 * One email, as a `MailTransport` sends it.
 *
 * @example
 * ```ts
 * import type { MailMessage } from 'countersign/worker';
 *
 * const message: MailMessage = {
 *   from: 'Approvals <approvals@example.com>',
 *   to: 'lee@example.com',
 *   subject: 'Refund of $250 waits for you',
 *   text: 'Decide at https://ops.example.com/approvals/',
 *   html: '<p>Decide in <a href="https://ops.example.com/approvals/">the inbox</a>.</p>',
 *   fileKey: 'refund-A-1042',
 * };
 * await mail.send(message);
 * ```
 */
export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /**
   * Names the `.eml` file when there is no SMTP server (`<epoch ms>-<fileKey>.eml`). A key of up to
   * 120 letters, digits, `_`, `.` and `-` is used as it is; any other is cut short and made safe,
   * with a hash of the whole key, so every key gets a file name of its own within any file system's
   * bounds.
   */
  fileKey: string;
}

/**
 * Where emails go: an SMTP server, or `.eml` files for local runs and tests. `close()` lets its
 * connections go.
 *
 * @example
 * ```ts
 * import { createMailTransport, type MailTransport } from 'countersign/worker';
 *
 * // No smtpUrl: .eml files in .countersign/outbox/
 * const mail: MailTransport = createMailTransport({ dataDir: '.countersign' });
 * await mail.send(message);
 * mail.close();
 * ```
 */
export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * By SMTP when `smtpUrl` is set; otherwise each message becomes an RFC 5322 `.eml` file in
 * `<dataDir>/outbox/`.
 *
 * @example
 * ```ts
 * import { createMailTransport } from 'countersign/worker';
 *
 * const mail = createMailTransport({
 *   smtpUrl: 'smtp://mail.example.com:587',
 *   dataDir: '/var/lib/countersign',
 * });
 * await mail.send({
 *   from: 'ops@example.com',
 *   to: 'lee@example.com',
 *   subject: 'Hi',
 *   text: 'Hi',
 *   html: '<p>Hi</p>',
 *   fileKey: 'hi',
 * });
 * mail.close();
 * ```
 */
export function createMailTransport(options: { smtpUrl?: string; dataDir: string }): MailTransport {
  if (options.smtpUrl) {
    const smtp = nodemailer.createTransport(options.smtpUrl);
    return {
      async send({ fileKey: _fileKey, ...message }) {
        await smtp.sendMail(message);
      },
      close: () => smtp.close(),
    };
  }
  const outbox = path.join(options.dataDir, 'outbox');
  const stream = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send({ fileKey, ...message }) {
      const info = await stream.sendMail(message);
      await mkdir(outbox, { recursive: true });
      const safe = fileNameOf(fileKey);
      // Written aside, then renamed: whoever watches the outbox never reads half a message.
      const file = path.join(outbox, `${Date.now()}-${safe}.eml`);
      await writeFile(`${file}.partial`, info.message as Buffer);
      await rename(`${file}.partial`, file);
    },
    close: () => stream.close(),
  };
}

const PLAIN_KEY = /^[A-Za-z0-9_.-]{1,120}$/;

/** A file name for a key, as `MailMessage.fileKey` says. */
function fileNameOf(key: string): string {
  if (PLAIN_KEY.test(key)) return key;
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return `${key.slice(0, 100).replace(/[^A-Za-z0-9_.-]/g, '_')}-${hash}`;
}
