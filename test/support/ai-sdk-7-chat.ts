/**
 * A chat front end built on AI SDK 7 (`ai-7`, an alias of `ai@7`, which needs Node 22 or later),
 * run as a child process by test/api/chat-ai-sdk-7.test.ts: its own `AbstractChat`, default HTTP
 * transport and stream reader against a `countersignChat` the test serves. It sends one message,
 * answers the approval it is shown, and prints the chat's messages, requests and error as JSON.
 */
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai-7';
import { PlainChatState } from './plain-chat-state.js';
import { waitFor } from './wait-for.js';

export interface Scenario {
  url: string;
  chatId: string;
  user: string;
  text: string;
  answer: { approved: boolean; reason?: string; edit?: Record<string, unknown> };
}

class NodeChat extends AbstractChat<UIMessage> {}

const scenario = JSON.parse(process.argv[2]!) as Scenario;
const requests: string[] = [];
const chat = new NodeChat({
  id: scenario.chatId,
  state: new PlainChatState<UIMessage>(),
  transport: new DefaultChatTransport({
    api: `${scenario.url}/chat`,
    headers: { authorization: `Bearer ${scenario.user}` },
    fetch: (input, init) => {
      requests.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    },
  }),
  sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
});

const ready = async () => {
  await waitFor(async () => (chat.status === 'ready' ? true : undefined), 'the chat to be ready');
  if (chat.error) throw chat.error;
};

await chat.sendMessage({ text: scenario.text });
await ready();
const asked = chat.lastMessage?.parts.find(
  (part): part is Extract<typeof part, { state: 'approval-requested' }> =>
    'state' in part && part.state === 'approval-requested',
);
if (!asked) throw new Error(`no approval requested: ${JSON.stringify(chat.messages)}`);
const { edit, ...answer } = scenario.answer;
const before = requests.length;
await chat.addToolApprovalResponse({
  id: asked.approval.id,
  ...answer,
  ...(edit ? { options: { body: { countersign: { edits: { [asked.approval.id]: { args: edit } } } } } } : {}),
});
// The answer is sent by `sendAutomaticallyWhen`: wait for its request, then for the response's end.
await waitFor(async () => (requests.length > before ? true : undefined), 'the answer to be sent');
await ready();
console.log(JSON.stringify({ messages: chat.messages, requests }));
