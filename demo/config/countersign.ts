import { z } from 'zod';
import { DEFAULT_MODEL } from 'countersign';
import path from 'node:path';

/** Countersign's own settings, from the environment. Static configuration only: run state lives in Temporal. */
const Env = z.object({
  COUNTERSIGN_DATA_DIR: z.string().min(1).default('.countersign'),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Base URL used in email links; defaults to http://HOST:PORT. */
  COUNTERSIGN_PUBLIC_URL: z.url().optional(),
  COUNTERSIGN_APPROVERS_FILE: z.string().min(1).optional(),
  /** HMAC key for email links and webhooks; generated into the data dir when absent. */
  COUNTERSIGN_SIGNING_SECRET: z.string().min(32).optional(),
  /** Where large tool outputs go: one directory every instance mounts; `<data dir>/content` when absent. */
  COUNTERSIGN_CONTENT_DIR: z.string().min(1).optional(),
  SMTP_URL: z.string().min(1).optional(),
  COUNTERSIGN_MAIL_FROM: z.string().min(3).default('Countersign <countersign@localhost>'),
  COUNTERSIGN_WEBHOOK_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url().optional(),
  COUNTERSIGN_MODEL: z.string().min(1).default(DEFAULT_MODEL),
  /** `false` where the cluster refuses OperatorService calls (Temporal Cloud): create them there. */
  COUNTERSIGN_REGISTER_SEARCH_ATTRIBUTES: z.enum(['true', 'false']).default('true'),
  /** Browser origins (the Temporal Web UI's) that may call the codec endpoint, comma-separated. */
  COUNTERSIGN_CODEC_CORS_ORIGINS: z.string().optional(),
});

export interface CountersignConfig {
  dataDir: string;
  port: number;
  host: string;
  publicUrl?: string;
  approversFile?: string;
  signingSecret?: string;
  /** Absent: `<data dir>/content`. */
  contentDir?: string;
  smtpUrl?: string;
  mailFrom: string;
  webhookUrl?: string;
  model: { apiKey?: string; baseUrl?: string; name: string };
  registerSearchAttributes: boolean;
  codecCorsOrigins: string[];
}

export function loadCountersignConfig(env: NodeJS.ProcessEnv = process.env): CountersignConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new Error(`invalid Countersign settings: ${z.prettifyError(parsed.error)}`);
  const e = parsed.data;
  return {
    dataDir: path.resolve(e.COUNTERSIGN_DATA_DIR),
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.COUNTERSIGN_PUBLIC_URL,
    approversFile: e.COUNTERSIGN_APPROVERS_FILE,
    signingSecret: e.COUNTERSIGN_SIGNING_SECRET,
    contentDir: e.COUNTERSIGN_CONTENT_DIR && path.resolve(e.COUNTERSIGN_CONTENT_DIR),
    smtpUrl: e.SMTP_URL,
    mailFrom: e.COUNTERSIGN_MAIL_FROM,
    webhookUrl: e.COUNTERSIGN_WEBHOOK_URL,
    model: { apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL, name: e.COUNTERSIGN_MODEL },
    registerSearchAttributes: e.COUNTERSIGN_REGISTER_SEARCH_ATTRIBUTES === 'true',
    codecCorsOrigins: (e.COUNTERSIGN_CODEC_CORS_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
  };
}
