import path from 'node:path';
import { z } from 'zod';
import { defineAgent, defineTool, OutcomeUnknownError } from 'countersign';
import { demoApprovers } from './approvers.js';
import { ensureSampleDatabase, runReadOnlyQuery } from './sample-db.js';
import { MANAGED_SERVICES, SimulatedServiceManager } from './service-manager.js';
import { HOSTNAME, SimulatedHost, VM_SIZES } from './simulated-host.js';
import { lazy } from './sqlite.js';

export const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'ap-southeast-1'] as const;

/** The reports run_db_report runs on the reporting database (the demo's sample sales database). */
export const DB_REPORTS = {
  revenue:
    "SELECT substr(ordered_at, 1, 7) AS month, COUNT(*) AS orders, ROUND(SUM(total), 2) AS revenue FROM orders WHERE status != 'refunded' GROUP BY month ORDER BY month",
  refunds:
    "SELECT substr(ordered_at, 1, 7) AS month, COUNT(*) AS orders, ROUND(SUM(total), 2) AS refunded FROM orders WHERE status = 'refunded' GROUP BY month ORDER BY month",
} as const;
export const REPORT_USER = 'report_reader';

/**
 * Read-only commands run at once; anything else waits for an operator. The pattern refuses shell
 * metacharacters, so `cat x; rm -rf /` is not mistaken for a read, and line breaks and other
 * control characters, so `cat x` followed by a second line `rm -rf /` is not either (a shell runs
 * each line). Copy it whole: dropping a class from it opens it again.
 */
export const READ_ONLY_COMMAND =
  '^(pwd|hostname|whoami|uptime|df|free|ps|ls|cat|head|tail|systemctl status)( [^;&|<>`$()\\\\\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029]*)?$';

export function opsAgent(dataDir: string) {
  const hostDb = path.join(dataDir, 'demo', 'ops-host.db');
  const host = lazy(() => new SimulatedHost(hostDb));
  const services = lazy(() => new SimulatedServiceManager(hostDb));
  const reportingDb = path.join(dataDir, 'demo', 'sample.db');

  const shell = defineTool({
    name: 'run_shell_command',
    description: `Run one shell command on ${HOSTNAME}. This is a simulated host: commands are interpreted, never executed by a real shell.`,
    parameters: z.object({
      command: z.string().min(1).max(1000),
      cwd: z.string().startsWith('/').default('/').describe('Absolute working directory'),
      timeoutSeconds: z.number().int().min(1).max(3600).default(30),
    }),
    // Dedupes on the idempotency key: an attempt cut off is simply run again.
    idempotent: true,
    approval: {
      when: {
        if: { arg: 'command', op: 'matches', value: READ_ONLY_COMMAND },
        then: 'auto',
        else: 'approve',
      },
      ...demoApprovers('operator'),
      editableFields: ['command', 'cwd', 'timeoutSeconds'],
      description: 'Run `{{command}}` in {{cwd}} on ' + HOSTNAME + ' (timeout {{timeoutSeconds}}s)',
    },
    execute: async ({ command, cwd, timeoutSeconds }, { idempotencyKey }) =>
      host().run(idempotencyKey, command, cwd, timeoutSeconds),
  });

  const provision = defineTool({
    name: 'provision_vm',
    description:
      'Provision a virtual machine (simulated cloud). Costs money per hour, so an operator approves.',
    parameters: z.object({
      size: z
        .enum(Object.keys(VM_SIZES) as [keyof typeof VM_SIZES])
        .describe('small, medium, large or xlarge'),
      region: z.enum(REGIONS),
    }),
    // Dedupes on the idempotency key: an attempt cut off is simply run again.
    idempotent: true,
    approval: {
      ...demoApprovers('operator'),
      editableFields: ['size', 'region'],
      description: 'Provision a {{size}} VM in {{region}}',
    },
    execute: async ({ size, region }, { idempotencyKey }) => host().provision(idempotencyKey, size, region),
  });

  const restart = defineTool({
    name: 'restart_service',
    description: `Restart a service the service manager on ${HOSTNAME} runs (${MANAGED_SERVICES.join(', ')}). Every request restarts it again: not safe to repeat blindly.`,
    parameters: z.object({ service: z.enum(MANAGED_SERVICES) }),
    // What "it happened" must give in the tool's place when nobody knows whether a restart did.
    result: z.object({
      service: z.enum(MANAGED_SERVICES),
      state: z.enum(['active', 'failed']).describe('The state the service is in now'),
      restarts: z.number().int().min(1).optional().describe('Restarts on record, if known'),
    }),
    // `idempotent` is left unset (false for a gated tool): the service manager does not dedupe, so
    // an attempt cut off, or unconfirmed, goes to an operator rather than being run again.
    approval: {
      ...demoApprovers('operator'),
      description: 'Restart the {{service}} service on ' + HOSTNAME,
    },
    async execute({ service }, context) {
      context.progress(`restart of ${service} requested from the service manager`);
      const { confirmed, result } = services().restart(context.idempotencyKey, service);
      if (!confirmed) {
        throw new OutcomeUnknownError(
          `the service manager accepted the restart of ${service} but never confirmed it`,
        );
      }
      return result;
    },
  });

  const dbReport = defineTool({
    name: 'run_db_report',
    description: `Run a standard report (${Object.keys(DB_REPORTS).join(', ')}: by month) on the reporting database. It signs in with a password an operator supplies when the call runs: you never see it and never pass it.`,
    parameters: z.object({ report: z.enum(Object.keys(DB_REPORTS) as [keyof typeof DB_REPORTS]) }),
    // Reads only: another attempt has no lasting effect.
    idempotent: true,
    // The report itself needs no approval; its password does: an operator (or the admin) types it.
    approval: { when: 'auto', ...demoApprovers('operator') },
    // Never a parameter: the model neither proposes nor sees it. `keep` is left at 'once', so every
    // report asks for it again; 'run' would keep it (sealed) for the rest of the run.
    secrets: [
      {
        name: 'reporting_db_password',
        label: `the password of ${REPORT_USER} on the reporting database (simulated: any password signs in)`,
      },
    ],
    async execute({ report }, { secrets }) {
      // A simulated database: any password signs in. The password is used here and nowhere else:
      // not returned, not logged, not even its length.
      if (!secrets.reporting_db_password) throw new Error('no password for the reporting database');
      ensureSampleDatabase(reportingDb);
      const { columns, rows, rowCount } = runReadOnlyQuery(reportingDb, DB_REPORTS[report]);
      return {
        report,
        database: 'reporting',
        simulated: true,
        signedInAs: REPORT_USER,
        columns,
        rows,
        rowCount,
      };
    },
  });

  return defineAgent({
    name: 'ops',
    description: `Operates ${HOSTNAME} (a simulated host), provisions VMs and runs database reports; changes wait for an operator, and an operator types the database password.`,
    instructions: [
      `You are an SRE assistant for ${HOSTNAME}. Use run_shell_command for one plain command at a time (no pipes).`,
      'Read-only commands run at once; anything that changes the host waits for an operator, who may edit it.',
      `Use provision_vm for new capacity (sizes: ${Object.keys(VM_SIZES).join(', ')}; regions: ${REGIONS.join(', ')}).`,
      `Use restart_service for ${MANAGED_SERVICES.join(', ')}; systemctl (through run_shell_command) for the host's own units.`,
      'Use run_db_report for the revenue and refunds reports; an operator supplies its database password, which you never see or ask for.',
      'If an operator rejects a call, say so and do not retry it.',
    ].join('\n'),
    tools: [shell, provision, restart, dbReport],
  });
}
