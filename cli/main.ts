import { Command, Option } from 'commander';
import type { ApprovalView, Decision, RunSummary, TranscriptMessage } from '../protocol/index.js';
import {
  answerSchema,
  answerValue,
  editDecision,
  outcomeText,
  parseJsonOption,
  submitDecision,
} from './decide.js';
import {
  approvalCard,
  approvalsTable,
  runDetail,
  runsTable,
  secretHowTo,
  terminalText,
  type RunDetail,
} from './format.js';
import { queryString, readApprovals, WHOLE_LIST_LIMIT } from './approval-list.js';
import { editWarnings } from './edit-warnings.js';
import { historiesCommand } from './histories.js';
import { Api, CliError, DEFAULT_URL, resolveToken, resolveUrl } from './http.js';
import { isTerminal, readSecret, secretProblem, withoutSecret } from './secret-input.js';
import { watch } from './watch.js';

interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/**
 * Everything printed goes through `terminalText`: fields one by one (format.ts), and the whole text
 * once more, so no server text reaches the terminal raw (JSON output stays JSON).
 */
/** What `--standing` signs for, said where an approver reads it. */
const STANDING_HELP =
  'also approve the later calls like this one in this run, on the terms its policy offers (see `approvals show`); refused where the policy offers none';

const print = (text: string) => process.stdout.write(`${terminalText(text, { block: true })}\n`);

/** The `countersign` command: a client of the REST API, local or remote. */
export function buildProgram(): Command {
  const program = new Command('countersign')
    .description('Start agent runs and decide their approvals through the Countersign REST API.')
    .addOption(
      new Option(
        '--url <url>',
        `Countersign API base URL (default: the instance npm start runs over <COUNTERSIGN_DATA_DIR>, from its instance.json; else ${DEFAULT_URL})`,
      ).env('COUNTERSIGN_URL'),
    )
    .addOption(
      new Option(
        '--token <token>',
        'approver bearer token (default: <COUNTERSIGN_DATA_DIR>/admin-token when present)',
      ).env('COUNTERSIGN_TOKEN'),
    )
    .option('--json', 'print the API responses as JSON')
    .option(
      '--revision <n>',
      'decide only if the proposal is still this revision (as `approvals show` printed it); default: as it is now',
    )
    .showHelpAfterError();

  const api = (command: Command) => {
    const options = command.optsWithGlobals<GlobalOptions>();
    const { url, from } = resolveUrl(options.url);
    return {
      api: new Api({ url, token: resolveToken(options.token), urlFrom: from }),
      json: options.json === true,
    };
  };
  /**
   * Decides on the revision the person reviewed (--revision, as `approvals show` prints it), or on
   * the proposal as it is now, which is printed with the outcome.
   */
  const decide = async (command: Command, trackingId: string, decision: Decision, shown?: ApprovalView) => {
    const { api: client, json } = api(command);
    const given = command.optsWithGlobals<{ revision?: string }>().revision;
    const current =
      shown ??
      (given === undefined
        ? await client.get<ApprovalView>(`/api/approvals/${encodeURIComponent(trackingId)}`)
        : undefined);
    const revision = given !== undefined ? Number(given) : current!.revision;
    if (!Number.isInteger(revision) || revision < 1)
      throw new CliError('--revision must be a positive integer');
    const outcome = await submitDecision(client, trackingId, decision, revision);
    print(
      json ? JSON.stringify(outcome, null, 2) : await outcomeText(client, trackingId, outcome, current?.kind),
    );
  };

  const runs = program.command('runs').description('start, list and inspect runs');
  runs
    .command('start')
    .description('start a run of an agent')
    .argument('<agent>', 'agent name, e.g. bank-transfer')
    .argument('<input...>', 'what to ask the agent')
    .option('--requester <id>', 'who the run is for (defaults to the token holder)')
    .action(async (agent: string, input: string[], options: { requester?: string }, command: Command) => {
      const { api: client, json } = api(command);
      const { body } = await client.request<{ runId: string }>('POST', '/api/runs', {
        agent,
        input: input.join(' '),
        ...(options.requester ? { requester: options.requester } : {}),
      });
      print(
        json
          ? JSON.stringify(body, null, 2)
          : `Started ${terminalText(body.runId)}\nFollow it with: npx countersign runs show ${terminalText(body.runId)}`,
      );
    });
  runs
    .command('list')
    .description('list recent runs')
    .option('--status <status>', 'running, waiting, paused, completed, failed or cancelled')
    .option('--agent <agent>', 'only runs of this agent')
    .option('--limit <runs>', 'runs per page (default 100): open ones first, then the latest ended')
    .option('--page-token <token>', 'go on from the page a list stopped at')
    .action(
      async (
        options: { status?: string; agent?: string; limit?: string; pageToken?: string },
        command: Command,
      ) => {
        const { api: client, json } = api(command);
        const body = await client.get<{ runs: RunSummary[]; nextPageToken?: string }>(
          `/api/runs${queryString(options)}`,
        );
        print(json ? JSON.stringify(body, null, 2) : runsTable(body.runs));
        if (!json && body.nextPageToken) print(`More: --page-token ${terminalText(body.nextPageToken)}`);
      },
    );
  runs
    .command('show')
    .description('show a run: status, transcript, pending approvals, audit trail, output')
    .argument('<runId>')
    .action(async (runId: string, _options: unknown, command: Command) => {
      const { api: client, json } = api(command);
      const body = await client.get<RunDetail>(`/api/runs/${encodeURIComponent(runId)}`);
      print(json ? JSON.stringify(body, null, 2) : runDetail(body));
    });
  runs
    .command('revoke-standing')
    .description(
      'end a standing approval of a run (by the tracking id of the approval that gave it): later calls like its call ask again',
    )
    .argument('<runId>')
    .argument('<trackingId>')
    .action(async (runId: string, trackingId: string, _options: unknown, command: Command) => {
      const { api: client, json } = api(command);
      const { body } = await client.request<{ runId: string; trackingId: string; status: string }>(
        'POST',
        `/api/runs/${encodeURIComponent(runId)}/standing/${encodeURIComponent(trackingId)}/revoke`,
        undefined,
        { 'x-countersign-channel': 'cli' },
      );
      print(json ? JSON.stringify(body, null, 2) : `${terminalText(body.trackingId)}: revoking`);
    });
  runs
    .command('cancel')
    .description('cancel a run: its pending approvals settle as cancelled, by you')
    .argument('<runId>')
    .action(async (runId: string, _options: unknown, command: Command) => {
      const { api: client, json } = api(command);
      const { body } = await client.request<{ runId: string; status: string }>(
        'POST',
        `/api/runs/${encodeURIComponent(runId)}/cancel`,
        undefined,
        { 'x-countersign-channel': 'cli' },
      );
      print(json ? JSON.stringify(body, null, 2) : `${terminalText(body.runId)}: cancelling`);
    });
  // `countersign pause` as well as `countersign runs pause`: beside approve and reject, where an
  // operator watching a run reaches for it.
  for (const [parent, action, does] of [runs, program].flatMap((parent) =>
    (
      [
        ['pause', 'pause a run before its next step (a running tool finishes); its approvals stay decidable'],
        ['resume', 'resume a paused run; --message reaches the model before its next model call'],
      ] as const
    ).map(([action, does]) => [parent, action, does] as const),
  )) {
    parent
      .command(action)
      .description(does)
      .argument('<runId>')
      .option(
        '-m, --message <text>',
        action === 'pause' ? 'why, for the audit trail' : 'a correction for the model',
      )
      .action(async (runId: string, options: { message?: string }, command: Command) => {
        const { api: client, json } = api(command);
        const { body } = await client.request<{ runId: string; status: string }>(
          'POST',
          `/api/runs/${encodeURIComponent(runId)}/${action}`,
          options.message !== undefined ? { message: options.message } : {},
          { 'x-countersign-channel': 'cli' },
        );
        print(
          json ? JSON.stringify(body, null, 2) : `${terminalText(body.runId)}: ${terminalText(body.status)}`,
        );
      });
  }

  const approvals = program.command('approvals').description('list and show approvals');
  approvals
    .command('show')
    .description(
      'show one approval with its context: arguments, who must decide, revision; for an unknown outcome, the attempt and what each answer means',
    )
    .argument('<trackingId>')
    .action(async (trackingId: string, _options: unknown, command: Command) => {
      const { api: client, json } = api(command);
      const approval = await client.get<ApprovalView>(`/api/approvals/${encodeURIComponent(trackingId)}`);
      if (json) {
        print(JSON.stringify(approval, null, 2));
        return;
      }
      const run = await client
        .get<{
          input: string;
          transcript: TranscriptMessage[];
        }>(`/api/runs/${encodeURIComponent(approval.runId)}`)
        .catch(() => undefined);
      const howTo =
        approval.kind === 'secret' && approval.status === 'pending'
          ? `\n${secretHowTo(approval.trackingId).join('\n')}`
          : '';
      print(`${approvalCard(approval, run)}\n  status: ${terminalText(approval.status)}${howTo}`);
    });
  approvals
    .command('list')
    .description('list approvals (pending by default)')
    .option('--status <status>', 'pending, decided or all', 'pending')
    .option('--agent <agent>', 'only approvals of this agent')
    .option('--tool <tool>', 'only approvals of this tool')
    .option('--limit <runs>', 'runs read per request (the API pages by runs): 1,000 for pending, else 50')
    .option('--page-token <token>', 'decided or all: go on from the page a list stopped at')
    .action(
      async (
        options: { status: string; agent?: string; tool?: string; limit?: string; pageToken?: string },
        command: Command,
      ) => {
        const { api: client, json } = api(command);
        // Pending approvals are read whole, page after page; decided ones (each run's state read)
        // a page at a time.
        const body =
          options.status === 'pending'
            ? await readApprovals(client, { ...options, limit: options.limit ?? WHOLE_LIST_LIMIT })
            : await readApprovals(client, options, 1);
        print(json ? JSON.stringify(body, null, 2) : approvalsTable(body.approvals));
        if (!json && body.nextPageToken) print(`More: --page-token ${terminalText(body.nextPageToken)}`);
      },
    );

  program
    .command('approve')
    .description(
      'approve a pending call; for an unknown outcome (kind outcome): it did not happen, run it again',
    )
    .argument('<trackingId>')
    .option('--message <text>', 'a note for the audit trail')
    .option('--standing', STANDING_HELP)
    .action((trackingId: string, options: { message?: string; standing?: boolean }, command: Command) =>
      decide(command, trackingId, {
        type: 'approve',
        ...(options.message ? { message: options.message } : {}),
        ...(options.standing ? { standing: true } : {}),
      }),
    );
  program
    .command('reject')
    .description(
      'refuse a pending call; the agent is told why and will not retry it. For an unknown outcome: it failed',
    )
    .argument('<trackingId>')
    .option(
      '--message <text>',
      'why (or what you know of how it failed), in words the agent and the audit trail will read',
    )
    .action((trackingId: string, options: { message?: string }, command: Command) =>
      decide(command, trackingId, {
        type: 'reject',
        ...(options.message ? { message: options.message } : {}),
      }),
    );
  program
    .command('edit')
    .description('approve a pending call with changed arguments')
    .argument('<trackingId>')
    .requiredOption(
      '--args <json>',
      'changed arguments as a JSON object, e.g. \'{"amount": 2000}\' (a JSON array for a plan)',
    )
    .option('--message <text>', 'a note for the audit trail')
    .option('--standing', STANDING_HELP)
    .action(
      async (
        trackingId: string,
        options: { args: string; message?: string; standing?: boolean },
        command: Command,
      ) => {
        const changes = parseJsonOption('args', options.args);
        const { api: client } = api(command);
        const approval = await client.get<ApprovalView>(`/api/approvals/${encodeURIComponent(trackingId)}`);
        // Fields not mentioned keep their proposed values, so `--args '{"amount":2000}'` is enough.
        const edit = editDecision(approval, changes, options.message);
        const decision =
          options.standing && edit.type === 'edit' ? { ...edit, standing: true as const } : edit;
        // Said before it is sent, on stderr: stdout stays the outcome (or JSON).
        for (const warning of await editWarnings(client, approval, decision))
          process.stderr.write(`${terminalText(warning)}\n`);
        await decide(command, trackingId, decision, approval);
      },
    );
  program
    .command('respond')
    .description(
      "answer in the tool's place (or answer an ask_human question); for an unknown outcome: it happened, and this was its result; for a secret (kind secret): supply it, typed at the prompt without echo, or piped on stdin (its first line), never as an argument",
    )
    .argument('<trackingId>')
    .option(
      '--result <answer>',
      'the answer (for an outcome, the result the tool would have returned): plain text where it is a string (sam@example.com), else JSON (\'{"ok": true}\'); required, except for a secret, which is never given here',
    )
    .option('--message <text>', 'a note for the audit trail')
    .action(async (trackingId: string, options: { result?: string; message?: string }, command: Command) => {
      const { api: client } = api(command);
      const approval = await client.get<ApprovalView>(`/api/approvals/${encodeURIComponent(trackingId)}`);
      const note = options.message ? { message: options.message } : {};
      if (approval.kind === 'secret') {
        const secret = await secretToSupply(approval, options.result !== undefined);
        try {
          await decide(command, trackingId, { type: 'respond', secret, ...note }, approval);
        } catch (error) {
          throw withoutSecret(error, secret);
        }
        return;
      }
      if (options.result === undefined)
        throw new CliError(
          '--result <answer> is required: the answer (for an outcome, the result the tool would have returned)',
        );
      const result = answerValue(options.result, await answerSchema(client, approval));
      await decide(command, trackingId, { type: 'respond', result, ...note }, approval);
    });

  program
    .command('watch')
    .description('interactive terminal approver: decide approvals as they arrive')
    .option('--agent <agent>', 'only approvals of this agent')
    .action(async (options: { agent?: string }, command: Command) => {
      const { api: client } = api(command);
      await watch(client, { agent: options.agent, input: process.stdin, output: process.stdout });
    });

  program.addCommand(historiesCommand(print));
  return program;
}

/**
 * The secret a person supplies for a pending approval of kind `secret`: typed at the terminal
 * with echo off, or the first line of stdin when it is not a terminal. A secret on the command
 * line is refused before anything is sent (`ps` and the shell's history keep argv); the error
 * never quotes it.
 */
async function secretToSupply(approval: ApprovalView, givenAsArgument: boolean): Promise<string> {
  const id = approval.trackingId;
  const label = approval.secret?.label ?? 'the secret';
  if (givenAsArgument) {
    throw new CliError(
      `${id} asks for a secret (${label}), and a secret is never taken from the command line, where ps and the shell's history keep it; nothing was sent. ` +
        `Run \`countersign respond ${id}\` without --result and type it at the prompt (it is not shown), ` +
        `or pipe it in: printf %s "$VALUE" | countersign respond ${id}. ` +
        'If what you passed was the real secret, treat it as exposed and change it.',
    );
  }
  if (approval.status !== 'pending')
    throw new CliError(`${id} is ${approval.status}: there is no secret to supply any more`);
  const atTerminal = isTerminal(process.stdin);
  if (atTerminal) {
    // On stderr, as a password prompt goes: stdout stays the command's answer.
    const asks = [
      `${approval.tool} (agent ${approval.agent}, run ${approval.runId}) needs a secret.`,
      ...(approval.question ? [`The agent asks: ${approval.question}`] : []),
      'What you type is not shown. Enter sends it; Ctrl-C cancels.',
    ];
    process.stderr.write(asks.map((text) => `${terminalText(text)}\n`).join(''));
  }
  const answer = await readSecret({
    input: process.stdin,
    output: process.stderr,
    prompt: `${terminalText(label)}: `,
  });
  if (!answer.ok) {
    throw new CliError(
      answer.why === 'closed'
        ? `no secret given: stdin is not a terminal and was empty. Type it at a terminal, or pipe it in: printf %s "$VALUE" | countersign respond ${id}`
        : 'cancelled; nothing was sent',
    );
  }
  const problem = secretProblem(answer.secret);
  if (problem) throw new CliError(`${problem}; nothing was sent`);
  return answer.secret;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CliError) {
      // Messages quote the server's answers.
      const details = error.details.map((d) => `${terminalText(d)}\n`).join('');
      process.stderr.write(`countersign: ${terminalText(error.message)}\n${details}`);
    } else {
      const text = (error as Error).stack ?? String(error);
      process.stderr.write(`countersign: ${terminalText(text, { block: true })}\n`);
    }
    process.exitCode = 1;
  }
}
