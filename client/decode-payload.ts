import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';

type Payload = proto.temporal.api.common.v1.IPayload;

/**
 * A memo value or a workflow's input, through the client's payload codecs (both are encrypted when
 * the workers encrypt payloads; search attributes never are). Rejects when it does not decode here,
 * for the caller to skip that one value rather than the whole list it came in.
 */
export async function decodePayload(client: Client, payload: Payload | null | undefined): Promise<unknown> {
  if (!payload) return undefined;
  const { payloadConverter, payloadCodecs } = client.options.loadedDataConverter;
  let decoded = [payload];
  // Codecs decode in the reverse of the order they encode in.
  for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return payloadConverter.fromPayload(decoded[0]!);
}
