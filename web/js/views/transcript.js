import { h, json } from '../dom.js';

function args(text) {
  try {
    return json(JSON.parse(text));
  } catch {
    return text;
  }
}

/** The run's conversation, as text only: what the user asked, what the model said and called, what tools answered. */
export function transcriptView(messages, { highlight } = {}) {
  return h(
    'ol',
    { class: 'transcript' },
    messages.map((m) => {
      if (m.role === 'assistant') {
        const calls = (m.tool_calls ?? []).map((c) =>
          h(
            'div',
            { class: `call${c.id === highlight ? ' highlight' : ''}` },
            h('code', {}, c.function.name),
            h('pre', {}, args(c.function.arguments)),
          ),
        );
        return h(
          'li',
          { class: 'msg msg-assistant' },
          h('span', { class: 'role' }, 'Model'),
          m.content ? h('p', { class: 'words' }, m.content) : null,
          calls,
        );
      }
      if (m.role === 'tool') {
        return h(
          'li',
          { class: 'msg msg-tool' },
          h('span', { class: 'role' }, `Tool result (${m.tool_call_id})`),
          h('pre', {}, m.content),
        );
      }
      if (m.role === 'system') {
        return h(
          'li',
          { class: 'msg msg-system' },
          h('details', {}, h('summary', {}, 'Instructions'), h('p', {}, m.content)),
        );
      }
      return h('li', { class: 'msg msg-user' }, h('span', { class: 'role' }, 'User'), h('p', {}, m.content));
    }),
  );
}

/** What the model said when it proposed this call. */
export function modelWords(messages, toolCallId) {
  const turn = messages.find(
    (m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => c.id === toolCallId),
  );
  return turn?.content ?? '';
}
