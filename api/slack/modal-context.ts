import { z } from 'zod';
import type { ButtonValue } from '../../notify/slack/card.js';

/**
 * What a modal of ours carries from the click to its submission, in its `private_metadata` (3,000
 * characters at most): the approval, the revision its card showed, and where to answer the clicker.
 */
const ModalContext = z.strictObject({
  trackingId: z.string().min(1).max(200),
  revision: z.number().int().min(1),
  responseUrl: z.url({ protocol: /^https?$/ }).optional(),
});
export type ModalContext = z.infer<typeof ModalContext>;

export function modalMetadata(button: ButtonValue, responseUrl: string | undefined): string {
  return JSON.stringify({ ...button, responseUrl } satisfies ModalContext);
}

/** The context of a submitted modal; undefined for metadata that is not ours. */
export function readModalContext(metadata: string): ModalContext | undefined {
  try {
    const context = ModalContext.safeParse(JSON.parse(metadata));
    return context.success ? context.data : undefined;
  } catch {
    return undefined;
  }
}
