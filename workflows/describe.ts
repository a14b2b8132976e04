import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { JsonObject, ToolSpec } from '../protocol/index.js';
import { policyOf } from './evaluate-policy.js';

/** What the approver reads: the policy's template with `{{field}}` filled in, or a plain default. */
export function describeCall(tool: ToolSpec, args: JsonObject): string {
  const template = policyOf(tool).description;
  if (!template) return `${tool.name}: ${tool.description}`;
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_match, field: string) => {
    const value = args[field];
    if (value === undefined) return `{{${field}}}`;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** The most useful message of an activity failure: its cause's. */
export function failureMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) {
    return err.cause instanceof ApplicationFailure || err.cause instanceof Error
      ? err.cause.message
      : String(err.cause);
  }
  return err instanceof Error ? err.message : String(err);
}
