/** The setting two instances disagree on when one refuses what the other signed. */
export const SIGNING_SECRET_SETTING =
  'COUNTERSIGN_SIGNING_SECRET (in your own service: the `signingSecret` of createNotifier and countersignRouter)';

// Anyone can send a token naming another key id: at most one warning a minute for each kind of
// token and each of this process's own key ids (which no caller chooses), with a count of the rest,
// so a caller cannot fill the log.
const WARN_EVERY_MS = 60_000;
const warned = new Map<string, { at: number; since: number }>();

/**
 * Tells the operator that a link or page token came signed with another signing key id than this
 * API's: the ids only, never the secret. The other id is unverified (anyone can write one), so this
 * is a hint to check the setting on every instance, not proof of which instance sent it.
 */
export function warnSigningMismatch(
  what: string,
  signerKeyId: string,
  keyId: string,
  now = Date.now(),
): void {
  const key = `${what}\0${keyId}`;
  const last = warned.get(key);
  if (last && now - last.at < WARN_EVERY_MS) {
    last.since++;
    return;
  }
  const more = last?.since ? ` (and ${last.since} more such refusals since the last warning)` : '';
  warned.set(key, { at: now, since: 0 });
  console.warn(
    `countersign api: refused ${what} signed with signing key id ${signerKeyId}; this API's is ${keyId}${more}. ` +
      `Every worker and API instance must share one ${SIGNING_SECRET_SETTING}.`,
  );
}
