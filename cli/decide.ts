import { setTimeout as sleep } from 'node:timers/promises';
import {
  requirementLines,
  type AgentSpec,
  type ApprovalView,
  type Decision,
  type DecisionOutcome,
  type JsonObject,
  type JsonSchema,
  type JsonValue,
  type PlanStep,
} from '../protocol/index.js';
import { terminalText } from './format.js';
import { CliError, type Api } from './http.js';

type Answer = { outcome?: DecisionOutcome; status?: 'submitted'; location?: string };

/** How long to poll for the workflow to take a decision the API answered with 202. */
const POLL_MS = 15_000;

/**
 * Sends a decision and waits for the workflow's verdict. The API answers at once when the run
 * took it in time; otherwise it gives a location to poll, which this follows for a while.
 */
export async function submitDecision(
  api: Api,
  trackingId: string,
  decision: Decision,
  /** The revision of the proposal the person decided on: a changed one is refused, never signed. */
  revision: number,
): Promise<DecisionOutcome | Answer> {
  const route = `/api/approvals/${encodeURIComponent(trackingId)}/decision`;
  const response = await api.request<Answer>('POST', route, decision, {
    'x-countersign-channel': 'cli',
    'if-match': `"${revision}"`,
  });
  if (response.body.outcome) return response.body.outcome;
  let answer = response.body;
  const deadline = Date.now() + POLL_MS;
  while (answer.location && Date.now() < deadline) {
    await sleep(500);
    const polled = await api.request<Answer>('GET', answer.location);
    if (polled.body.outcome) return polled.body.outcome;
    answer = polled.body;
  }
  return answer;
}

/** What a settled outcome approval now says of the call, after its status. */
const OUTCOME_SETTLED: Partial<Record<DecisionOutcome['status'], string>> = {
  approved: 'it did not happen: the tool runs again',
  rejected: 'it failed',
  responded: 'it happened: the model gets your result',
};

/** What a settled secret approval now says, after its status. */
const SECRET_SETTLED: Partial<Record<DecisionOutcome['status'], string>> = {
  responded: 'the secret went to the tool; it is never shown again',
  rejected: 'nobody supplies it: the call goes without',
};

export function describeOutcome(
  trackingId: string,
  result: DecisionOutcome | Answer,
  kind?: ApprovalView['kind'],
): string {
  if ('accepted' in result) {
    const revision = result.revision !== undefined ? ` on revision ${result.revision}` : '';
    const settled = kind === 'outcome' ? OUTCOME_SETTLED : kind === 'secret' ? SECRET_SETTLED : {};
    const meaning = result.accepted ? settled[result.status] : undefined;
    return `${trackingId}: ${result.status}${revision}${meaning ? ` (${meaning})` : ''}`;
  }
  return `${trackingId}: decision submitted; the run has not taken it yet (poll ${result.location ?? 'the approval'}).`;
}

/**
 * What a decision did, for the terminal, and where the approval stands after it where more than one
 * sign-off counts: each requirement's count as the inbox shows it (`cfo or admin: 1 of 2`), read
 * afresh. A sum over requirements would not add up: one sign-off can count toward several, and an
 * edit into a stricter tier adds one.
 */
export async function outcomeText(
  api: Api,
  trackingId: string,
  result: DecisionOutcome | Answer,
  kind?: ApprovalView['kind'],
): Promise<string> {
  const said = terminalText(describeOutcome(trackingId, result, kind));
  if (!('accepted' in result) || !result.accepted) return said;
  const now = await api
    .get<ApprovalView>(`/api/approvals/${encodeURIComponent(trackingId)}`)
    .catch(() => undefined);
  if (!now || (now.requirements.length < 2 && now.requirements.every((r) => r.count < 2))) return said;
  return [said, ...requirementLines(now).map((need) => `  ${terminalText(need)}`)].join('\n');
}

export function parseJsonOption(name: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`--${name} is not valid JSON: ${(error as Error).message}`);
  }
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The edit a person means by `changes`, as `countersign edit` and `watch` both take it: an object
 * names only the fields that change, and every field it leaves out keeps its current value (so it
 * is never an edit); a plan takes a JSON array of `{"tool", "args"}` steps, or, when it has one
 * step, an object of that step's changed arguments. `source` names the input in errors.
 */
export function editDecision(
  approval: ApprovalView,
  changes: unknown,
  message: string | undefined,
  source = '--args',
): Decision {
  const note = message ? { message } : {};
  if (approval.kind === 'plan') {
    const plan = approval.plan ?? [];
    const single = isObject(changes) && plan.length === 1;
    if (!Array.isArray(changes) && !single)
      throw new CliError(`${source} for a plan must be a JSON array of {"tool", "args"} steps`);
    const edited = single
      ? [{ ...plan[0]!, args: { ...plan[0]!.args, ...(changes as JsonObject) } }]
      : (changes as PlanStep[]);
    return { type: 'edit', plan: edited, ...note };
  }
  if (!isObject(changes)) throw new CliError(`${source} must be a JSON object`);
  // A result under review is edited as the output it is; a call, as its arguments.
  const current = approval.kind === 'result' ? approval.result : approval.args;
  const args = isObject(current) ? { ...current, ...changes } : changes;
  return { type: 'edit', args, ...note };
}

/** The top-level fields an edit changes, as `field: before -> after`: what will be sent as changed. */
export function editChanges(approval: ApprovalView, decision: Decision): string[] {
  if (decision.type !== 'edit' || !decision.args) return [];
  const current = approval.kind === 'result' ? approval.result : approval.args;
  const before: JsonObject = isObject(current) ? current : {};
  const keys = [...new Set([...Object.keys(before), ...Object.keys(decision.args)])];
  const show = (value: JsonValue | undefined) => (value === undefined ? '(none)' : JSON.stringify(value));
  return keys
    .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(decision.args![key]))
    .map((key) => `${key}: ${show(before[key])} -> ${show(decision.args![key])}`);
}

/**
 * The JSON Schema a `respond` answer must meet: a question's own, or an unknown outcome's (the
 * tool's result schema: the approval's `schema`), or for a call or a result the tool's result
 * schema, which the agent's spec carries (none: any JSON).
 */
export async function answerSchema(api: Api, approval: ApprovalView): Promise<JsonSchema> {
  if (approval.kind === 'question' || approval.kind === 'outcome') return approval.schema;
  const { agents } = await api.get<{ agents: AgentSpec[] }>('/api/agents');
  const tool = agents.find((a) => a.name === approval.agent)?.tools.find((t) => t.name === approval.tool);
  return tool?.resultSchema ?? {};
}

const types = (schema: JsonSchema): string[] | undefined =>
  typeof schema.type === 'string'
    ? [schema.type]
    : Array.isArray(schema.type)
      ? (schema.type as string[])
      : undefined;

/** A schema whose every value is a string: a `type: "string"`, or an enum of strings. */
function onlyStrings(schema: JsonSchema): boolean {
  const type = types(schema);
  if (type) return type.length > 0 && type.every((t) => t === 'string');
  return Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string');
}

/** A schema that lets a string through: no type, or one that includes string. */
function allowsStrings(schema: JsonSchema): boolean {
  const type = types(schema);
  return type === undefined ? !Array.isArray(schema.enum) || onlyStrings(schema) : type.includes('string');
}

/**
 * A typed answer as the value to send. When the answer must be a string the text is taken as it
 * is (`jane@example.com`; a JSON-quoted `"jane@example.com"` still means the string inside). Any
 * other schema reads JSON, and text that is not JSON is a string answer where a string is allowed.
 */
export function answerValue(text: string, schema: JsonSchema, source = '--result'): JsonValue {
  let parsed: JsonValue | undefined;
  let problem = '';
  try {
    parsed = JSON.parse(text) as JsonValue;
  } catch (error) {
    problem = (error as Error).message;
  }
  if (onlyStrings(schema)) return typeof parsed === 'string' ? parsed : text;
  if (parsed !== undefined) return parsed;
  if (allowsStrings(schema)) return text;
  throw new CliError(
    `${source} is not valid JSON: ${problem} (the answer must be ${types(schema)?.join(' or ') ?? 'JSON'})`,
  );
}
