import { isDeepStrictEqual } from 'node:util';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonValue } from '../protocol/index.js';

type Content = CallToolResult['content'][number];

/**
 * What the model reads of a content item: text as it is, and a note for what it cannot read here
 * (an image, audio, binary data), so it knows something came back rather than nothing.
 */
function readable(item: Content): string {
  switch (item.type) {
    case 'text':
      return item.text;
    case 'resource':
      return 'text' in item.resource
        ? item.resource.text
        : `[binary resource ${item.resource.uri}${item.resource.mimeType ? ` (${item.resource.mimeType})` : ''}, not shown]`;
    case 'resource_link':
      return `[resource ${item.uri}${item.name ? `: ${item.name}` : ''}]`;
    case 'image':
    case 'audio':
      return `[${item.type} (${item.mimeType}), not shown]`;
    default:
      return `[content of type ${(item as { type: string }).type}, not shown]`;
  }
}

/** The item's text, when it is the structured content written out (as the spec asks servers to do). */
function echoes(item: Content, structured: Record<string, unknown>): boolean {
  if (item.type !== 'text') return false;
  try {
    return isDeepStrictEqual(JSON.parse(item.text), structured);
  } catch {
    return false;
  }
}

/**
 * A tool result as the run keeps it: the structured content when there is some (with any other
 * content beside it), else the content's text, one item per line.
 */
export function outputOf(result: CallToolResult): JsonValue {
  const structured = result.structuredContent;
  const items = structured ? result.content.filter((item) => !echoes(item, structured)) : result.content;
  const text = items.map(readable).join('\n');
  if (!structured) return text;
  return items.length === 0
    ? (structured as JsonValue)
    : { structuredContent: structured as JsonValue, content: text };
}

/** What the model is told of a result the server marked as an error. */
export function errorText(result: CallToolResult): string {
  return result.content.map(readable).join('\n') || 'the tool reported an error and said nothing more';
}
