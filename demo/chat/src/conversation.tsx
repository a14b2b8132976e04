/** One chat with the bank-transfer agent, through `useChat` and the AI SDK's default transport. */
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useEffect, useState } from 'react';
import { authorization } from '../../../web/js/api.js';
import type { ChatMessage } from './messages.js';
import { AssistantParts } from './parts.js';
import { storeMessages, storedMessages } from './stored.js';

const EXAMPLE = 'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444';

// countersignChat is mounted at `/chat/api`, beside this page; the inbox's token names who chats.
const transport = new DefaultChatTransport<ChatMessage>({ api: 'api', headers: () => authorization() });

/** An answer the API refused comes as its JSON error (`{ error: { message } }`). */
function errorText(error: Error): string {
  try {
    const body = JSON.parse(error.message) as { error?: { message?: string } };
    return body.error?.message ?? error.message;
  } catch {
    return error.message;
  }
}

export function Conversation({ chatId }: { chatId: string }) {
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat<ChatMessage>({
    id: chatId,
    messages: storedMessages(chatId),
    transport,
    // Your answer to an approval goes to the run as soon as you give it.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    // A reload, or a visit a day later, picks the run up where it is.
    resume: true,
  });
  const [input, setInput] = useState('');
  useEffect(() => storeMessages(chatId, messages), [chatId, messages]);
  const busy = status === 'submitted' || status === 'streaming';

  return (
    <main>
      {messages.length === 0 && (
        <p className="intro">
          Ask the bank-transfer agent for a transfer, for example <q>{EXAMPLE}</q>{' '}
          <button type="button" onClick={() => setInput(EXAMPLE)}>
            Use this example
          </button>
          . Over $1,000 it waits for your approval here; over $100,000 for the CFO&apos;s as well.
        </p>
      )}
      <ol className="messages" role="log" aria-label="Conversation">
        {messages.map((message) => (
          <li key={message.id} className={`message ${message.role}`}>
            <h2>{message.role === 'user' ? 'You' : 'Agent'}</h2>
            {message.role === 'user' ? (
              message.parts.map(
                (part, i) =>
                  part.type === 'text' && (
                    <p key={i} className="text">
                      {part.text}
                    </p>
                  ),
              )
            ) : (
              <AssistantParts message={message} answer={addToolApprovalResponse} />
            )}
          </li>
        ))}
      </ol>
      <p role="status" className="status">
        {status === 'submitted' ? 'Sending…' : status === 'streaming' ? 'The run is going on…' : ''}
      </p>
      {error && (
        <p role="alert" className="failed">
          {errorText(error)}
        </p>
      )}
      <form
        className="composer"
        onSubmit={(event) => {
          event.preventDefault();
          if (!input.trim()) return;
          void sendMessage({ text: input.trim() });
          setInput('');
        }}
      >
        <label htmlFor="message">Message</label>
        <input id="message" value={input} autoComplete="off" onChange={(e) => setInput(e.target.value)} />
        <button type="submit" disabled={busy}>
          Send
        </button>
      </form>
    </main>
  );
}
