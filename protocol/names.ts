/** The built-in tool through which the model asks a person a question. */
export const ASK_HUMAN_TOOL = 'ask_human';
