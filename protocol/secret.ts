import { z } from 'zod';
import { Name } from './name.js';

/**
 * A secret a tool needs from a person (a password, a one-time code, an API key): its name, what the
 * person is asked for, and how long the run keeps it. The model never proposes it and never sees
 * it; the tool's `execute` receives it in `context.secrets[name]`.
 *
 * @example
 * ```ts
 * import type { SecretSpec } from 'countersign';
 *
 * const password: SecretSpec = { name: 'db_password', label: 'Password of the reporting database', keep: 'run' };
 * ```
 */
export const SecretSpec = z.strictObject({
  name: Name,
  /** What the person is asked for, shown beside the password field. */
  label: z.string().min(1).max(200),
  /** `once`: asked for every call that uses it (the default). `run`: kept for the rest of the run. */
  keep: z.enum(['once', 'run']).default('once'),
});
export type SecretSpec = z.output<typeof SecretSpec>;
/**
 * A {@link SecretSpec} as written, `keep` left out for `once`.
 *
 * @example
 * ```ts
 * import type { SecretSpecInput } from 'countersign';
 *
 * const code: SecretSpecInput = { name: 'otp', label: 'the one-time code from your authenticator' };
 * ```
 */
export type SecretSpecInput = z.input<typeof SecretSpec>;

/**
 * What a person types for a secret, as the API, the CLI and the inbox take it. It never reaches
 * the workflow: the API seals it first.
 *
 * @example
 * ```ts
 * import { SecretText } from './secret.js';
 *
 * SecretText.safeParse('').success; // false: a secret is never empty
 * ```
 */
export const SecretText = z.string().min(1).max(8_192);

/**
 * A secret as it travels through Temporal: AES-256-GCM ciphertext under a secret key the workflow
 * never holds, bound to its approval and name, written `cs1:<key id>:<base64url>`. Only the
 * activity that runs the tool opens it.
 *
 * @example
 * ```ts
 * import { SealedSecret } from './secret.js';
 *
 * SealedSecret.safeParse('hunter2').success; // false: the workflow takes only sealed secrets
 * ```
 */
export const SealedSecret = z
  .string()
  .max(12_000)
  .regex(
    /^cs1:[A-Za-z0-9._-]{1,64}:[A-Za-z0-9_-]+$/,
    'a secret sealed by the API (cs1:<key id>:<ciphertext>)',
  );

/**
 * The secret an approval of kind `secret` asks for.
 *
 * @example
 * ```ts
 * if (approval.kind === 'secret') console.log(`${approval.tool} needs: ${approval.secret?.label}`);
 * ```
 */
export const SecretRequest = z.strictObject({ name: Name, label: z.string() });
export type SecretRequest = z.infer<typeof SecretRequest>;
