/**
 * The demo's chat page (`npm start` serves it at `/chat/`): a chat with the bank-transfer agent whose
 * approvals you give in the conversation. Signed in with the inbox's own token.
 */
import { generateId } from 'ai';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { token } from '../../../web/js/api.js';
import { Conversation } from './conversation.js';
import './chat.css';
import { chatIdOfPage } from './stored.js';

function App() {
  const [chatId, setChatId] = useState(chatIdOfPage);
  useEffect(() => {
    const follow = () => setChatId(chatIdOfPage());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return (
    <>
      <header>
        <h1>Chat with the bank-transfer agent</h1>
        <nav aria-label="Pages">
          <a href="../">Inbox</a>
          <button type="button" onClick={() => (location.hash = generateId())}>
            New chat
          </button>
        </nav>
      </header>
      {token.get() ? (
        // A new chat is a new useChat.
        <Conversation key={chatId} chatId={chatId} />
      ) : (
        <main>
          <p>
            Sign in at the <a href="../">inbox</a> first, with the admin token <code>npm start</code> printed:
            this page uses the same sign-in.
          </p>
        </main>
      )}
    </>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
