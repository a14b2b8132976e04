import { setTimeout as sleep } from 'node:timers/promises';
import { GrpcStatus } from './grpc-status.js';
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
  DATETIME: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
} as const;

/** Each type as the `temporal` CLI spells it. */
const CLI_TYPES = {
  INT: 'Int',
  KEYWORD: 'Keyword',
  KEYWORD_LIST: 'KeywordList',
  DATETIME: 'Datetime',
} as const;

const codeOf = (error: unknown) => (error as { code?: number }).code;

/** What to create by hand where Countersign may not (Temporal Cloud), one `temporal` command each. */
function howToCreate(namespace: string): string {
  return Object.values(SEARCH_ATTRIBUTES)
    .map(
      (a) =>
        `  temporal operator search-attribute create --namespace ${namespace} --name ${a.name} --type ${CLI_TYPES[a.type]}`,
    )
    .join('\n');
}

/** Retries what a cluster answers while two processes register at once ("mapping unavailable"). */
async function withRetry<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (codeOf(error) !== GrpcStatus.UNAVAILABLE || attempt >= 8) throw error;
      await sleep(250 * attempt);
    }
  }
}

/**
 * Registers Countersign's custom search attributes, as a real cluster requires before a workflow may
 * set them, and checks each has the type Countersign writes. Safe to call at every start and from
 * several processes at once. Where the cluster refuses (Temporal Cloud creates attributes in the
 * namespace settings), the error names the attributes to create.
 *
 * @example
 * ```ts
 * import { Connection } from '@temporalio/client';
 * import { registerSearchAttributes } from 'countersign/client';
 *
 * const connection = await Connection.connect({ address: 'temporal.internal:7233' });
 * await registerSearchAttributes(connection, 'default');
 * ```
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const operator = connection.operatorService;
  let existing: Record<string, temporal.api.enums.v1.IndexedValueType>;
  try {
    const listed = await withRetry(() => operator.listSearchAttributes({ namespace }));
    existing = { ...listed.systemAttributes, ...listed.customAttributes };
  } catch (error) {
    if (codeOf(error) === GrpcStatus.UNIMPLEMENTED) return addEachBlindly(connection, namespace);
    throw refused(error, namespace);
  }
  const missing: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const attribute of Object.values(SEARCH_ATTRIBUTES)) {
    const type = existing[attribute.name];
    if (type === undefined) missing[attribute.name] = TYPES[attribute.type];
    else if (type !== TYPES[attribute.type]) {
      throw new Error(
        `search attribute ${attribute.name} exists in namespace ${namespace} with type ${IndexedValueType[type]}; Countersign needs ${attribute.type}`,
      );
    }
  }
  if (Object.keys(missing).length === 0) return;
  try {
    // SQL visibility skips a name that exists (with a warning), Elasticsearch answers ALREADY_EXISTS.
    await withRetry(() => operator.addSearchAttributes({ namespace, searchAttributes: missing }));
  } catch (error) {
    if (codeOf(error) !== GrpcStatus.ALREADY_EXISTS) throw refused(error, namespace);
  }
}

/**
 * The time-skipping test server has no list: add each attribute, an existing one answering
 * ALREADY_EXISTS.
 */
async function addEachBlindly(connection: Connection, namespace: string): Promise<void> {
  for (const attribute of Object.values(SEARCH_ATTRIBUTES)) {
    try {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: { [attribute.name]: TYPES[attribute.type] },
      });
    } catch (error) {
      if (codeOf(error) !== GrpcStatus.ALREADY_EXISTS) throw refused(error, namespace);
    }
  }
}

function refused(error: unknown, namespace: string): Error {
  const code = codeOf(error);
  if (code !== GrpcStatus.PERMISSION_DENIED && code !== GrpcStatus.UNIMPLEMENTED) return error as Error;
  return new Error(
    `Temporal refused to register Countersign's search attributes in namespace ${namespace} (${(error as Error).message}). ` +
      `On Temporal Cloud, create them in the namespace settings or with:\n${howToCreate(namespace)}\n` +
      'then set COUNTERSIGN_REGISTER_SEARCH_ATTRIBUTES=false.',
  );
}
