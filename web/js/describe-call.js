// @ts-check
/**
 * A call's description as the workflow writes it (workflows/describe.ts): the tool's policy
 * template with `{{field}}` filled in from the arguments. Null when the tool has no template, or
 * this page does not know the tool: then only the workflow's own description is shown.
 * @param {import('../types/inbox.js').ToolSpec | undefined} tool
 * @param {import('../types/inbox.js').JsonObject} args
 */
export function describeCall(tool, args) {
  const template = tool?.approval?.description;
  if (!template) return null;
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_match, field) => {
    const value = args[field];
    if (value === undefined) return `{{${field}}}`;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
