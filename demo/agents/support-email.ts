import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineAgent, defineTool } from 'countersign';
import { createMailTransport } from 'countersign/worker';
import { demoApprovers } from './approvers.js';

export const SUPPORT_FROM = 'Acme Support <support@acme.example>';

/** The `.eml` files of sent mail whose name carries this key: the outbox itself is the dedupe record. */
async function sentFile(outbox: string, fileKey: string): Promise<string | undefined> {
  const names = await readdir(outbox).catch(() => [] as string[]);
  return names.find((name) => name.endsWith(`-${fileKey}.eml`));
}

export function supportEmailAgent(dataDir: string) {
  const outbox = path.join(dataDir, 'outbox');
  // Demo mail always lands in the outbox, even with SMTP configured: the demo never mails strangers.
  const transport = createMailTransport({ dataDir });

  const sendEmail = defineTool({
    name: 'send_email',
    description:
      'Send an email to a customer. In this demo it is written to the outbox folder as an .eml file.',
    parameters: z.object({
      to: z.email().describe('Recipient address'),
      subject: z.string().min(1).max(200),
      body: z.string().min(1).max(20_000).describe('Plain-text body'),
    }),
    // Dedupes on the idempotency key: an attempt cut off is simply run again.
    idempotent: true,
    approval: {
      ...demoApprovers('support-lead'),
      editableFields: ['subject', 'body'],
      description: 'Email {{to}}: "{{subject}}"',
    },
    execute: async ({ to, subject, body }, { idempotencyKey }) => {
      const fileKey = `support-${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 24)}`;
      let file = await sentFile(outbox, fileKey);
      const alreadySent = file !== undefined;
      if (!alreadySent) {
        await transport.send({ from: SUPPORT_FROM, to, subject, text: body, html: '', fileKey });
        file = await sentFile(outbox, fileKey);
      }
      return { status: 'sent', to, subject, file: path.join(outbox, file ?? ''), alreadySent };
    },
  });

  return defineAgent({
    name: 'support-email',
    description: 'Drafts and sends customer support emails; a support lead approves each one.',
    instructions: [
      'You answer customers for Acme by email with send_email. Be brief and friendly; sign as "Acme Support".',
      'If you lack a fact you need (the customer address, an order number, what was promised), ask a human with ask_human instead of guessing.',
      'A support lead may edit the subject and body before the email goes out. If they reject it, do not send it again.',
    ].join('\n'),
    askHuman: true,
    tools: [sendEmail],
  });
}
