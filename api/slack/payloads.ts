import { z } from 'zod';
import { HttpError } from '../errors.js';

/** Slack adds fields as it likes: these read what Countersign uses and leave the rest. */
const User = z.object({ id: z.string().min(1).max(50), team_id: z.string().max(50).optional() });

/** A button of a message was clicked. */
const BlockActions = z.object({
  type: z.literal('block_actions'),
  user: User,
  trigger_id: z.string().min(1).max(200),
  /** Where to answer the clicker (ephemeral) or replace the message, for 30 minutes. */
  response_url: z.url({ protocol: /^https?$/ }).optional(),
  actions: z
    .array(
      z.object({
        action_id: z.string().max(255),
        value: z.string().max(2000).optional(),
        action_ts: z.string().max(50).optional(),
      }),
    )
    .min(1),
});

/** A modal of ours was submitted. */
const ViewSubmission = z.object({
  type: z.literal('view_submission'),
  user: User,
  view: z.object({
    id: z.string().min(1).max(100),
    callback_id: z.string().max(255),
    private_metadata: z.string().max(3000),
    state: z.object({
      // A text or number input's `value`; a select's `selected_option`.
      values: z.record(
        z.string(),
        z.record(
          z.string(),
          z.object({
            value: z.string().nullish(),
            selected_option: z.object({ value: z.string() }).nullish(),
          }),
        ),
      ),
    }),
  }),
});

/** Anything else Slack sends (a modal closed, a shortcut): acknowledged, and nothing done. */
const Other = z.object({ type: z.string().max(100) });

export type BlockActions = z.infer<typeof BlockActions>;
export type ViewSubmission = z.infer<typeof ViewSubmission>;
export type Interaction = BlockActions | ViewSubmission | { type: 'other' };

const SCHEMAS = new Map<string, z.ZodType<Interaction>>([
  ['block_actions', BlockActions],
  ['view_submission', ViewSubmission],
]);

/** The form Slack posts (`payload=<JSON>`), read only once its signature verified. */
export function readInteraction(body: Buffer): Interaction {
  const raw = new URLSearchParams(body.toString('utf8')).get('payload');
  let json: unknown;
  try {
    json = JSON.parse(raw ?? '');
  } catch {
    throw new HttpError(400, 'a Slack interaction is a form with a JSON `payload`', {
      code: 'invalid_request',
    });
  }
  const kind = Other.safeParse(json);
  const schema = kind.success ? SCHEMAS.get(kind.data.type) : undefined;
  if (kind.success && !schema) return { type: 'other' };
  const parsed = schema?.safeParse(json);
  if (!parsed?.success)
    throw new HttpError(400, 'not a Slack interaction payload', { code: 'invalid_request' });
  return parsed.data;
}

export const isBlockActions = (i: Interaction): i is BlockActions => i.type === 'block_actions';
export const isViewSubmission = (i: Interaction): i is ViewSubmission => i.type === 'view_submission';
