import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../protocol/index.js';

// The proto package is CommonJS: its namespace is reached through the default export under ESM.
const IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;

const TYPES = {
  INT: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  KEYWORD_LIST: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
} as const;

/**
 * Registers Countersign's custom search attributes, as a real cluster requires before a workflow may
 * set them. Safe to call at every start: attributes that already exist are left alone.
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set([
    ...Object.keys(existing.customAttributes ?? {}),
    ...Object.keys(existing.systemAttributes ?? {}),
  ]);
  const missing: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const attribute of Object.values(SEARCH_ATTRIBUTES)) {
    if (!known.has(attribute.name)) missing[attribute.name] = TYPES[attribute.type];
  }
  if (Object.keys(missing).length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (err) {
    // Another process registering at the same moment is fine.
    if ((err as { code?: number }).code !== GrpcStatus.ALREADY_EXISTS) throw err;
  }
}
