import { invalid } from './errors.js';
import { IndexedValueType, type Payload } from './proto.js';

/** IndexedValueType number <-> the type names the SDK writes into payload metadata. */
export const TYPE_NAMES: Record<number, string> = {
  [IndexedValueType.INDEXED_VALUE_TYPE_TEXT!]: 'Text',
  [IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD!]: 'Keyword',
  [IndexedValueType.INDEXED_VALUE_TYPE_INT!]: 'Int',
  [IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE!]: 'Double',
  [IndexedValueType.INDEXED_VALUE_TYPE_BOOL!]: 'Bool',
  [IndexedValueType.INDEXED_VALUE_TYPE_DATETIME!]: 'Datetime',
  [IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST!]: 'KeywordList',
};
export type AttrType = 'Text' | 'Keyword' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';
const T = (name: AttrType): number => Number(Object.entries(TYPE_NAMES).find(([, n]) => n === name)![0]);

/** Attributes every execution has, filled from its own state rather than from upserts. */
export const SYSTEM_ATTRIBUTES: Record<string, AttrType> = {
  WorkflowId: 'Keyword',
  RunId: 'Keyword',
  WorkflowType: 'Keyword',
  ExecutionStatus: 'Keyword',
  TaskQueue: 'Keyword',
  StartTime: 'Datetime',
  CloseTime: 'Datetime',
  ExecutionTime: 'Datetime',
  ExecutionDuration: 'Int',
  HistoryLength: 'Int',
  HistorySizeBytes: 'Int',
  // Written by SDKs (patching, versioning) and the scheduler; stored like custom ones.
  TemporalChangeVersion: 'KeywordList',
  BinaryChecksums: 'KeywordList',
  BuildIds: 'KeywordList',
  BatcherUser: 'Keyword',
  TemporalScheduledStartTime: 'Datetime',
  TemporalScheduledById: 'Keyword',
};
/** Names a workflow may upsert although they are not custom attributes. */
const UPSERTABLE_SYSTEM = new Set(['TemporalChangeVersion', 'BinaryChecksums', 'BuildIds']);

/** Pre-registered in every namespace, as in Temporal's own development server. */
const DEFAULT_CUSTOM: Record<string, AttrType> = {
  CustomKeywordField: 'Keyword',
  CustomStringField: 'Text',
  CustomTextField: 'Text',
  CustomIntField: 'Int',
  CustomDoubleField: 'Double',
  CustomBoolField: 'Bool',
  CustomDatetimeField: 'Datetime',
};

export interface AttributeStore {
  saveSearchAttribute(namespace: string, name: string, type: number): void;
  removeSearchAttribute(namespace: string, name: string): void;
}

/** Custom search attributes registered per namespace through the OperatorService. */
export class SearchAttributeRegistry {
  private readonly custom = new Map<string, Map<string, AttrType>>();

  constructor(
    private readonly store: AttributeStore,
    saved: { namespace: string; name: string; type: number }[],
  ) {
    for (const s of saved) {
      const name = TYPE_NAMES[s.type];
      if (name) this.ns(s.namespace).set(s.name, name as AttrType);
    }
  }

  private ns(namespace: string): Map<string, AttrType> {
    let m = this.custom.get(namespace);
    if (!m) {
      m = new Map(Object.entries(DEFAULT_CUSTOM));
      this.custom.set(namespace, m);
    }
    return m;
  }

  typeOf(namespace: string, name: string): AttrType | undefined {
    return SYSTEM_ATTRIBUTES[name] ?? this.ns(namespace).get(name);
  }

  add(namespace: string, attrs: Record<string, number>): void {
    const m = this.ns(namespace);
    for (const [name, type] of Object.entries(attrs)) {
      const typeName = TYPE_NAMES[type] as AttrType | undefined;
      if (!typeName) throw invalid(`search attribute ${name}: unknown type ${type}`);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
        throw invalid(`search attribute name ${JSON.stringify(name)} is not valid`);
      if (SYSTEM_ATTRIBUTES[name]) throw invalid(`search attribute ${name} is reserved by the system`);
      const existing = m.get(name);
      // Re-adding with the same type is a no-op, so applications can register on every start.
      if (existing && existing !== typeName) {
        throw invalid(`search attribute ${name} already exists with type ${existing}`);
      }
    }
    for (const [name, type] of Object.entries(attrs)) {
      m.set(name, TYPE_NAMES[type] as AttrType);
      this.store.saveSearchAttribute(namespace, name, type);
    }
  }

  remove(namespace: string, names: string[]): void {
    const m = this.ns(namespace);
    for (const name of names) if (!m.has(name)) throw invalid(`search attribute ${name} is not registered`);
    for (const name of names) {
      m.delete(name);
      this.store.removeSearchAttribute(namespace, name);
    }
  }

  list(namespace: string): { custom: Record<string, number>; system: Record<string, number> } {
    const custom: Record<string, number> = {};
    for (const [name, type] of this.ns(namespace)) custom[name] = T(type);
    const system: Record<string, number> = {};
    for (const [name, type] of Object.entries(SYSTEM_ATTRIBUTES)) system[name] = T(type);
    return { custom, system };
  }

  /** Rejects attributes a real server would reject, with the message naming the attribute. */
  validate(namespace: string, fields: Record<string, Payload> | null | undefined): void {
    for (const name of Object.keys(fields ?? {})) {
      if (SYSTEM_ATTRIBUTES[name] && !UPSERTABLE_SYSTEM.has(name)) {
        throw invalid(`search attribute ${name} is a system attribute and cannot be set`);
      }
      if (!this.typeOf(namespace, name)) {
        throw invalid(
          `search attribute ${name} is not registered in namespace ${namespace} (add it with OperatorService.AddSearchAttributes)`,
        );
      }
    }
  }
}

/** Decodes a search-attribute payload (json/plain) to a JS value; null for unset. */
export function decodeAttrValue(p: Payload): unknown {
  const data = p.data ? Buffer.from(p.data).toString('utf8') : '';
  if (data === '') return null;
  try {
    return JSON.parse(data);
  } catch {
    return null;
  }
}

/** Upsert semantics: a null or empty-list value removes the attribute. */
export function mergeAttributes(
  current: Record<string, Payload>,
  update: Record<string, Payload> | null | undefined,
): Record<string, Payload> {
  const out = { ...current };
  for (const [k, v] of Object.entries(update ?? {})) {
    const value = decodeAttrValue(v);
    if (value === null || (Array.isArray(value) && value.length === 0)) delete out[k];
    else out[k] = v;
  }
  return out;
}
