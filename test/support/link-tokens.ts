/** An email link token with its payload rewritten and its signature kept, as a forger would try. */
export function rewriteLinkPayload(
  token: string,
  change: (payload: Record<string, unknown>) => void,
): string {
  const [payload, signature] = token.split('.');
  const fields = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(fields);
  return `${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${signature}`;
}
