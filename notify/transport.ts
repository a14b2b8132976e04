import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Names the `.eml` file when there is no SMTP server. */
  fileKey: string;
}

export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** By SMTP when `smtpUrl` is set; otherwise each message becomes an RFC 5322 `.eml` file in `<dataDir>/outbox/`. */
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
      const safe = fileKey.replace(/[^A-Za-z0-9_.-]/g, '_');
      // Written aside, then renamed: whoever watches the outbox never reads half a message.
      const file = path.join(outbox, `${Date.now()}-${safe}.eml`);
      await writeFile(`${file}.partial`, info.message as Buffer);
      await rename(`${file}.partial`, file);
    },
    close: () => stream.close(),
  };
}
