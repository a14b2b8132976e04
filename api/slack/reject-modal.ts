import type { ButtonValue } from '../../notify/slack/card.js';
import { modalMetadata, readModalContext, type ModalContext } from './modal-context.js';
import type { ViewSubmission } from './payloads.js';

export const REJECT_CALLBACK = 'countersign_reject';
const REASON_BLOCK = 'reason';
const REASON_INPUT = 'message';

/** The modal Reject opens: the reason the agent is told (optional, as in the inbox). */
export function rejectModal(button: ButtonValue, responseUrl: string | undefined) {
  return {
    type: 'modal' as const,
    callback_id: REJECT_CALLBACK,
    title: { type: 'plain_text' as const, text: 'Reject' },
    submit: { type: 'plain_text' as const, text: 'Reject' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    private_metadata: modalMetadata(button, responseUrl),
    blocks: [
      {
        type: 'section' as const,
        text: {
          type: 'plain_text' as const,
          text: `Reject revision ${button.revision} of ${button.trackingId}? The agent is told the call was refused, and why.`,
        },
      },
      {
        type: 'input' as const,
        block_id: REASON_BLOCK,
        optional: true,
        label: { type: 'plain_text' as const, text: 'Why' },
        element: {
          type: 'plain_text_input' as const,
          action_id: REASON_INPUT,
          multiline: true,
          max_length: 4000,
        },
      },
    ],
  };
}

/** The submitted modal: what it was opened for, and the reason typed (none when left empty). */
export function readRejection(
  view: ViewSubmission['view'],
): { context: ModalContext; message?: string } | undefined {
  const context = readModalContext(view.private_metadata);
  if (!context) return undefined;
  const message = view.state.values[REASON_BLOCK]?.[REASON_INPUT]?.value?.trim();
  return { context, ...(message ? { message } : {}) };
}
