import { z } from 'zod';
import { defineAgent, defineTool, OutcomeUnknownError } from '../../define/index.js';
import type { ApproverConfig } from '../../protocol/index.js';

/** Agents for the API, email and inbox tests: one gated call each, with different policies. */

/** Side effects per run, so tests can see a tool ran (and ran once) with which arguments. */
export const toolRuns: { runId: string; tool: string; args: Record<string, unknown> }[] = [];

const transfer = defineTool({
  name: 'transfer',
  description: 'Move money between accounts.',
  parameters: z.object({
    from: z.string().min(1),
    to: z.string().min(1),
    amount: z.number().positive().max(1_000_000),
    memo: z.string().max(140).optional(),
  }),
  approval: {
    decisions: ['approve', 'edit', 'reject', 'respond'],
    editableFields: ['amount', 'memo'],
    description: 'Transfer {{amount}} from {{from}} to {{to}}',
    approvers: ['admin', 'treasurer'],
  },
  async execute(args, context) {
    toolRuns.push({ runId: context.runId, tool: 'transfer', args });
    return { transferred: args.amount, to: args.to };
  },
});

let deployHold: Promise<void> | undefined;

/** Makes every deploy wait until the returned function is called, to keep a run busy in a tool. */
export function holdDeploys(): () => void {
  let release!: () => void;
  deployHold = new Promise((resolve) => (release = resolve));
  return () => {
    deployHold = undefined;
    release();
  };
}

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service.',
  parameters: z.object({ service: z.string(), version: z.string() }),
  approval: { decisions: ['approve', 'reject'], approvers: ['admin'] },
  async execute(args, context) {
    await deployHold;
    toolRuns.push({ runId: context.runId, tool: 'deploy', args });
    return `deployed ${args.service}@${args.version}`;
  },
});

const payout = defineTool({
  name: 'payout',
  description: 'Pay a supplier; two people must agree.',
  parameters: z.object({ supplier: z.string(), amount: z.number().positive() }),
  approval: { decisions: ['approve', 'reject'], approvers: ['admin', 'treasurer'], requiredApprovals: 2 },
  async execute(args, context) {
    toolRuns.push({ runId: context.runId, tool: 'payout', args });
    return { paid: args.amount };
  },
});

const restartAttempts = new Map<string, number>();

/**
 * Does not dedupe. The first attempt to restart a service named `unsure-*` cannot tell whether the
 * restart happened (an unknown outcome a person answers); later attempts, and other services, do.
 */
const restartService = defineTool({
  name: 'restart_service',
  description: 'Restart a service (not safe to repeat).',
  parameters: z.object({ service: z.string() }),
  result: z.object({ restarted: z.string() }),
  approval: { approvers: ['admin'] },
  async execute(args, context) {
    const attempt = (restartAttempts.get(context.idempotencyKey) ?? 0) + 1;
    restartAttempts.set(context.idempotencyKey, attempt);
    toolRuns.push({ runId: context.runId, tool: 'restart_service', args });
    context.progress(`restart of ${args.service} requested`);
    if (attempt === 1 && args.service.startsWith('unsure-'))
      throw new OutcomeUnknownError(`${args.service} did not confirm the restart`);
    return { restarted: args.service };
  },
});

export const bank = defineAgent({
  name: 'bank',
  description: 'Moves money when asked.',
  instructions: 'You move money carefully.',
  tools: [transfer],
});

export const ops = defineAgent({
  name: 'ops',
  description: 'Deploys services.',
  instructions: 'You deploy services.',
  tools: [deploy, restartService],
});

/** Two people must agree, and either may change the amount first. */
const grant = defineTool({
  name: 'grant',
  description: 'Grant a supplier credit.',
  parameters: z.object({ supplier: z.string(), amount: z.number().positive() }),
  approval: {
    decisions: ['approve', 'edit', 'reject'],
    editableFields: ['amount'],
    approvers: ['admin', 'treasurer'],
    requiredApprovals: 2,
  },
  async execute(args, context) {
    toolRuns.push({ runId: context.runId, tool: 'grant', args });
    return { granted: args.amount };
  },
});

export const treasury = defineAgent({
  name: 'treasury',
  description: 'Pays suppliers.',
  instructions: 'You pay suppliers.',
  tools: [payout, grant],
});

const build = defineTool({
  name: 'build',
  description: 'Build a target.',
  parameters: z.object({ target: z.string().min(1) }),
  // A reviewer who adds a build to a plan may approve it themselves.
  approval: { approvers: ['admin'], allowSelfApproval: true },
  async execute(args, context) {
    toolRuns.push({ runId: context.runId, tool: 'build', args });
    return `built ${args.target}`;
  },
});

const publish = defineTool({
  name: 'publish',
  description: 'Publish to a channel.',
  parameters: z.object({ channel: z.enum(['beta', 'stable']) }),
  approval: { approvers: ['admin'] },
  async execute(args, context) {
    toolRuns.push({ runId: context.runId, tool: 'publish', args });
    return `published to ${args.channel}`;
  },
});

/** Shows each turn's calls to a human as one plan. */
export const release = defineAgent({
  name: 'release',
  description: 'Builds and publishes.',
  instructions: 'You release software.',
  planReview: true,
  tools: [build, publish],
});

/** Asks a human through the built-in `ask_human` tool. */
export const helper = defineAgent({
  name: 'helper',
  description: 'Asks when unsure.',
  instructions: 'Ask a human when you lack a fact.',
  askHuman: true,
  tools: [],
});

/** What each secret-taking call received, for tests to compare with what a person supplied. */
export const secretsReceived: { runId: string; toolCallId: string; secrets: Record<string, string> }[] = [];

/**
 * Runs a report on a database whose password a person supplies for each call. Its output echoes
 * the password, as a careless tool might: Countersign must withhold it.
 */
const runReport = defineTool({
  name: 'run_report',
  description: 'Run a named report on the reporting database.',
  parameters: z.object({ report: z.string().min(1) }),
  approval: { when: 'auto', approvers: ['admin'] },
  secrets: [{ name: 'db_password', label: 'the reporting database password' }],
  maxAttempts: 1,
  async execute(args, context) {
    secretsReceived.push({
      runId: context.runId,
      toolCallId: context.toolCallId,
      secrets: { ...context.secrets },
    });
    toolRuns.push({ runId: context.runId, tool: 'run_report', args });
    if (args.report === 'broken')
      throw new Error(`login refused for password ${context.secrets.db_password}`);
    if (args.report.startsWith('missing-')) throw new Error(`there is no report named ${args.report}`);
    // An `encoded` report echoes the password base64-ed, as a client library's error or debug
    // output does: in an error's cause when it fails, in a Basic authorization header when not.
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    const password = context.secrets.db_password ?? '';
    if (args.report === 'encoded-broken')
      throw new Error('login refused', { cause: new Error(`the server saw ${base64(password)}`) });
    if (args.report === 'encoded')
      return `3 rows; token=${base64(password)}; authorization: Basic ${base64(`reports:${password}`)}`;
    // The first attempt of an `unsure-*` report cannot tell whether it ran: a person says.
    const attempts = secretsReceived.filter(
      (r) => r.runId === context.runId && r.toolCallId === context.toolCallId,
    );
    if (args.report.startsWith('unsure-') && attempts.length === 1)
      throw new OutcomeUnknownError('the database closed the connection mid-report');
    return { report: args.report, rows: 3, connectedWith: context.secrets.db_password ?? '' };
  },
});

/** Signs in with a one-time code the model asks a person for (ask_human with `secret`). */
const signIn = defineTool({
  name: 'sign_in',
  description: 'Sign in to the admin console with a one-time code.',
  parameters: z.object({ account: z.string().min(1) }),
  approval: { when: 'auto', approvers: ['admin'] },
  secrets: [{ name: 'otp', label: 'the one-time code from the authenticator', keep: 'run' }],
  async execute(args, context) {
    secretsReceived.push({
      runId: context.runId,
      toolCallId: context.toolCallId,
      secrets: { ...context.secrets },
    });
    toolRuns.push({ runId: context.runId, tool: 'sign_in', args });
    return { signedIn: args.account };
  },
});

/** Needs secrets from people: for each call, or once for the run through ask_human. */
export const dba = defineAgent({
  name: 'dba',
  description: 'Runs reports on the databases.',
  instructions: 'You run reports. Ask a person for credentials you lack.',
  askHuman: true,
  tools: [runReport, signIn],
});

export const apiTestAgents = [bank, ops, treasury, release, helper, dba];

const token = (name: string) => `${name}-token-0123456789abcdef`;

export const testApprovers: ApproverConfig[] = [
  { id: 'alice', name: 'Alice', email: 'alice@example.com', roles: ['admin'], token: token('alice') },
  { id: 'bob', name: 'Bob', email: 'bob@example.com', roles: ['treasurer'], token: token('bob') },
  { id: 'victor', name: 'Victor', roles: ['viewer'], token: token('victor') },
];

export const tokens = { alice: token('alice'), bob: token('bob'), victor: token('victor') };
