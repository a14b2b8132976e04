/**
 * A chat's state as a framework binding keeps it (what `@ai-sdk/react`'s `Chat` keeps in React),
 * here in plain fields: the AI SDK's `ChatState`, written without importing it, so that the AI SDK 6
 * and 7 chats of the tests share it.
 */
export class PlainChatState<Message> {
  status: 'submitted' | 'streaming' | 'ready' | 'error' = 'ready';
  error: Error | undefined = undefined;
  messages: Message[] = [];
  pushMessage = (message: Message) => void this.messages.push(message);
  popMessage = () => void this.messages.pop();
  replaceMessage = (index: number, message: Message) => {
    this.messages[index] = message;
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}
