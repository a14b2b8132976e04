/**
 * Whether a reviewer may add a call of this tool to a plan: a safe tool, or one whose policy allows
 * edits. Cutting a proposed step and adding it back changed is an edit, so a tool its policy only
 * lets people approve or reject is never added; the API and the workflow both refuse it.
 *
 * @example
 * ```ts
 * import { mayAddToPlan } from 'countersign';
 *
 * mayAddToPlan({ approval: { decisions: ['approve', 'reject'] } }); // false
 * ```
 */
export function mayAddToPlan(tool: { safe?: boolean; approval?: { decisions?: string[] } }): boolean {
  if (tool.safe) return true;
  return (tool.approval?.decisions ?? ['approve', 'edit', 'reject']).includes('edit');
}
