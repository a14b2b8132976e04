import type { AssistantReply } from 'countersign/dev';
import type { Conversation, Step } from '../conversation.js';
import { answer, callTools, failureLine, isObject, refusalLine, table } from '../reply.js';

type Call = { name: string; args: Record<string, unknown> };

const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'ap-southeast-1'];
/** The services restart_service restarts; any other restart is a systemctl command on the host. */
const MANAGED_SERVICES = ['payments', 'checkout', 'search'];
const shell = (command: string): Call => ({
  name: 'run_shell_command',
  args: { command, cwd: '/', timeoutSeconds: 30 },
});

/** Plain requests an operator types, mapped to commands the simulated host understands. */
const INTENTS: [RegExp, (m: RegExpExecArray) => Call][] = [
  // A report on the reporting database: its password is no argument; a person supplies it.
  [
    /\b(revenue|refund)s? report\b|\breport (?:on|of|for) (?:the )?(revenue|refund)s?\b/i,
    (m) => ({
      name: 'run_db_report',
      args: { report: (m[1] ?? m[2])!.toLowerCase() === 'refund' ? 'refunds' : 'revenue' },
    }),
  ],
  [
    new RegExp(`restart (?:the )?(${MANAGED_SERVICES.join('|')})\\b`, 'i'),
    (m) => ({ name: 'restart_service', args: { service: m[1]!.toLowerCase() } }),
  ],
  [/disk (?:usage|space)|free space/i, () => shell('df -h')],
  [/memory/i, () => shell('free -m')],
  [/uptime|load average/i, () => shell('uptime')],
  [/restart (?:the )?([\w-]+)(?: service)?/i, (m) => shell(`systemctl restart ${m[1]}`)],
  [/stop (?:the )?([\w-]+)(?: service)?/i, (m) => shell(`systemctl stop ${m[1]}`)],
  [
    /(?:status of (?:the )?|is (?:the )?)([\w-]+)(?: service)?(?: running)?/i,
    (m) => shell(`systemctl status ${m[1]}`),
  ],
  [
    /(?:clean|clear|delete|remove)(?: up)? (?:the )?(?:old|rotated) logs/i,
    () => shell('rm -f /var/log/app/app.log.*'),
  ],
  [
    /(?:show|tail|read) (?:the )?(?:app(?:lication)? )?logs?/i,
    () => shell('tail -n 20 /var/log/app/app.log'),
  ],
];

export function planOps(text: string): Call[] {
  const quoted = [...text.matchAll(/`([^`]+)`/g)].map((m) => shell(m[1]!.trim()));
  const vm =
    /provision (?:an? )?(?:(small|medium|large|xlarge) )?(?:vm|virtual machine|server|machine|instance)(?: in ([a-z]{2}-[a-z]+-\d))?/i.exec(
      text,
    );
  const calls = [...quoted];
  if (vm) {
    const region = vm[2] && REGIONS.includes(vm[2].toLowerCase()) ? vm[2].toLowerCase() : 'us-east-1';
    calls.push({ name: 'provision_vm', args: { size: (vm[1] ?? 'medium').toLowerCase(), region } });
  }
  if (calls.length > 0) return calls;
  for (const [pattern, build] of INTENTS) {
    const m = pattern.exec(text);
    if (m) return [build(m)];
  }
  return [];
}

function whatOf(call: Step['call']): string {
  if (call.name === 'provision_vm')
    return `provision a ${String(call.args.size)} VM in ${String(call.args.region)}`;
  if (call.name === 'restart_service') return `restart ${String(call.args.service)}`;
  if (call.name === 'run_db_report') return `run the ${String(call.args.report)} report`;
  return `run \`${String(call.args.command)}\``;
}

/**
 * A restart's result: the service manager's own, or one an operator gave when nobody knew whether
 * the restart happened (it carries no `simulated` mark of the host's).
 */
function restartReport(r: Record<string, unknown>): string {
  const service = String(r.service);
  if (r.simulated !== true)
    return `An operator reported that the restart of ${service} happened: it is ${String(r.state)}.`;
  const count = Number(r.restarts);
  return `Restarted ${service} on ${String(r.host)}: it is ${String(r.state)}${count > 1 ? ` (${count} restarts on record)` : ''}.`;
}

/** A report's rows. Its password never came this way: the tool signed in with it and kept it. */
function dbReport(r: Record<string, unknown>): string {
  const rows = Array.isArray(r.rows) ? (r.rows as Record<string, unknown>[]) : [];
  const columns = Array.isArray(r.columns) ? (r.columns as string[]) : [];
  return [
    `Ran the ${String(r.report)} report on the ${String(r.database)} database${r.simulated === true ? ' (simulated)' : ''} as ${String(r.signedInAs)}, with the password a person supplied (I never saw it): ${String(r.rowCount)} row(s).`,
    rows.length > 0 ? table(columns, rows) : '',
  ]
    .filter(Boolean)
    .join('\n');
}

function report(step: Step): string {
  const { call, outcome } = step;
  const what = whatOf(call);
  if (outcome.kind === 'refused') return refusalLine(step, what);
  if (outcome.kind === 'failed') return failureLine(step, what);
  const r = outcome.data;
  if (!isObject(r)) return outcome.text;
  if (call.name === 'restart_service') return restartReport(r);
  if (call.name === 'run_db_report') return dbReport(r);
  if (isObject(r.vm)) {
    const vm = r.vm;
    return `Provisioned ${String(vm.id)}: ${String(vm.size)} in ${String(vm.region)}, IP ${String(vm.ip)}, $${String(vm.hourlyCost)}/hour (simulated cloud).`;
  }
  const edited =
    r.command !== call.args.command ? ` (an operator changed it from \`${String(call.args.command)}\`)` : '';
  const output = [String(r.stdout ?? ''), String(r.stderr ?? '')].join('').trimEnd();
  return [
    `\`${String(r.command)}\`${edited} exited with ${String(r.exitCode)} on ${String(r.host)}.`,
    output ? '```\n' + output + '\n```' : '',
  ]
    .filter(Boolean)
    .join('\n');
}

export function opsRule(conversation: Conversation): AssistantReply {
  if (conversation.steps.length > 0) return answer(...conversation.latest.map(report));
  const calls = planOps(conversation.request);
  if (calls.length === 0) {
    return answer(
      'I can check disk usage, memory, uptime and logs, restart or stop a service (payments, checkout and search through the service manager), clean up rotated logs, run a `quoted command`, provision a VM (e.g. "Provision a large VM in eu-west-1"), or run the revenue or refunds report on the reporting database (a person supplies its password).',
    );
  }
  const [only] = calls.length === 1 ? calls : [];
  if (only?.name === 'run_db_report') {
    return callTools(
      conversation,
      `Running the ${String(only.args.report)} report on the reporting database; a person supplies its password, which I never see.`,
      calls,
    );
  }
  const changes =
    only?.name === 'run_shell_command'
      ? `Running \`${String(only.args.command)}\``
      : only?.name === 'restart_service'
        ? `Restarting ${String(only.args.service)} through the service manager`
        : 'Proposing the operations';
  return callTools(
    conversation,
    `${changes} on the simulated host; anything that changes it waits for an operator.`,
    calls,
  );
}
