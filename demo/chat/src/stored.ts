/**
 * What the page keeps in the browser: which chat it shows (in its address, so a reload opens the
 * same one) and its copy of that chat's messages. `useChat` sends its messages with each request, and
 * countersignChat counts the user messages to tell a new turn from an answer; the run itself, and
 * everything it shows, is read from Temporal.
 */
import { generateId } from 'ai';
import type { ChatMessage } from './messages.js';

/** As countersignChat accepts them: 1 to 100 letters, digits, `_` or `-`. */
const CHAT_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The chat the address names (`#<chatId>`), or a new one named there. */
export function chatIdOfPage(): string {
  const named = location.hash.slice(1);
  if (CHAT_ID.test(named)) return named;
  const fresh = generateId();
  history.replaceState(null, '', `#${fresh}`);
  return fresh;
}

const keyOf = (chatId: string) => `countersign.chat.${chatId}`;

export function storedMessages(chatId: string): ChatMessage[] {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(keyOf(chatId)) ?? '[]');
    return Array.isArray(stored) ? (stored as ChatMessage[]) : [];
  } catch {
    return [];
  }
}

export function storeMessages(chatId: string, messages: ChatMessage[]): void {
  if (messages.length > 0) localStorage.setItem(keyOf(chatId), JSON.stringify(messages));
}
