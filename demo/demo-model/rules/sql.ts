import type { AssistantReply } from 'countersign/dev';
import type { Conversation, Step } from '../conversation.js';
import { answer, callTools, failureLine, isObject, refusalLine, table } from '../reply.js';

const REVENUE = "o.status != 'refunded'";

export const QUERIES = {
  revenueByCountry: `SELECT c.country, ROUND(SUM(o.total), 2) AS revenue, COUNT(*) AS orders FROM orders o JOIN customers c ON c.id = o.customer_id WHERE ${REVENUE} GROUP BY c.country ORDER BY revenue DESC LIMIT 10`,
  topProducts: `SELECT p.name, p.category, SUM(o.quantity) AS units, ROUND(SUM(o.total), 2) AS revenue FROM orders o JOIN products p ON p.id = o.product_id WHERE ${REVENUE} GROUP BY p.id ORDER BY revenue DESC LIMIT 5`,
  monthlyRevenue: `SELECT substr(o.ordered_at, 1, 7) AS month, ROUND(SUM(o.total), 2) AS revenue FROM orders o WHERE ${REVENUE} GROUP BY month ORDER BY month LIMIT 12`,
  topCustomers: (n: number) =>
    `SELECT c.name, c.country, ROUND(SUM(o.total), 2) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE ${REVENUE} GROUP BY c.id ORDER BY revenue DESC LIMIT ${n}`,
  ordersIn: (country: string) =>
    `SELECT o.id, c.name, o.total, o.status, o.ordered_at FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.country = '${country}' ORDER BY o.ordered_at DESC LIMIT 20`,
  refunds: `SELECT o.id, c.name, o.total, o.ordered_at FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'refunded' ORDER BY o.total DESC LIMIT 20`,
};

const COUNTRY_CODES: Record<string, string> = {
  us: 'US',
  usa: 'US',
  'united states': 'US',
  de: 'DE',
  germany: 'DE',
  fr: 'FR',
  france: 'FR',
  gb: 'GB',
  uk: 'GB',
  'united kingdom': 'GB',
  jp: 'JP',
  japan: 'JP',
  br: 'BR',
  brazil: 'BR',
  in: 'IN',
  india: 'IN',
  ca: 'CA',
  canada: 'CA',
};

/** The queries a request needs; several at once make a plan for the analyst to review. */
export function planQueries(text: string): string[] {
  const quoted = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.trim());
  if (quoted.length > 0) return quoted;
  const raw = /^\s*(select|with)\b[\s\S]*$/i.exec(text);
  if (raw) return [raw[0].trim()];
  if (/analy[sz]|overview|report|breakdown/i.test(text))
    return [QUERIES.revenueByCountry, QUERIES.topProducts, QUERIES.monthlyRevenue];
  const top = /top (\d+) customers/i.exec(text);
  if (top) return [QUERIES.topCustomers(Math.min(Number(top[1]), 100))];
  if (/top customers|best customers/i.test(text)) return [QUERIES.topCustomers(10)];
  const country = /orders (?:from|in) ([a-z ]+?)(?:[.?!,]|$)/i.exec(text);
  if (country) {
    const code = COUNTRY_CODES[country[1]!.trim().toLowerCase()];
    if (code) return [QUERIES.ordersIn(code)];
  }
  if (/revenue by country|by country/i.test(text)) return [QUERIES.revenueByCountry];
  if (/top products|best[- ]selling|by product/i.test(text)) return [QUERIES.topProducts];
  if (/month/i.test(text)) return [QUERIES.monthlyRevenue];
  if (/refund/i.test(text)) return [QUERIES.refunds];
  return [];
}

function report(step: Step): string {
  const sql = String(step.call.args.sql);
  if (step.outcome.kind === 'refused') return refusalLine(step, `run \`${sql}\``);
  if (step.outcome.kind === 'failed') return failureLine(step, `run \`${sql}\``);
  const r = step.outcome.data;
  if (!isObject(r)) return step.outcome.text;
  if (r.ok !== true) return `The query \`${sql}\` failed: ${String(r.error)}`;
  const ran = String(r.sql ?? sql);
  const edited = ran !== sql ? ' (as edited by the analyst)' : '';
  const rows = r.rows as Record<string, unknown>[];
  const more =
    Number(r.rowCount) > Math.min(rows.length, 10)
      ? `\n(${String(r.rowCount)} rows in all; first ${Math.min(rows.length, 10)} shown)`
      : '';
  return `\`${ran}\`${edited} returned ${String(r.rowCount)} row(s):\n${table(r.columns as string[], rows)}${more}`;
}

export function sqlRule(conversation: Conversation): AssistantReply {
  if (conversation.steps.length > 0) return answer(...conversation.latest.map(report));
  const queries = planQueries(conversation.request);
  if (queries.length === 0) {
    return answer(
      'I can answer questions such as "top 5 customers", "revenue by country", "orders from Germany", "monthly revenue", or run a `SELECT ...` you quote; ask for an analysis to get a multi-query plan.',
    );
  }
  const note =
    queries.length > 1
      ? `I plan ${queries.length} queries; the analyst reviews the plan before any runs.`
      : 'Proposing one query for the analyst to review.';
  return callTools(
    conversation,
    note,
    queries.map((sql) => ({ name: 'execute_sql_query', args: { sql } })),
  );
}
