import { z } from 'zod';

/**
 * What an agent or tool name may be: a letter, then up to 63 letters, digits, `_` or `-`. Such a
 * name is a valid OpenAI function name, and safe in ids and list queries.
 *
 * @example
 * ```ts
 * import { NAME_PATTERN } from 'countersign';
 *
 * NAME_PATTERN.test('refund_order'); // true
 * NAME_PATTERN.test('refund order'); // false
 * ```
 */
export const NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
/**
 * An agent or tool name ({@link NAME_PATTERN}), as a zod schema.
 *
 * @example
 * ```ts
 * import { Name } from 'countersign';
 *
 * Name.safeParse('2fa-reset').success; // false: a name starts with a letter
 * ```
 */
export const Name = z.string().regex(NAME_PATTERN, 'letters, digits, _ and -, starting with a letter');
