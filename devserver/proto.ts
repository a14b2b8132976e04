import { createRequire } from 'node:module';
import type { google, temporal } from '@temporalio/proto';

/**
 * The SDK's protobufjs JSON module gives us every Temporal message and service by
 * reflection, so the devserver needs no .proto files and stays in step with the pinned SDK.
 */
export interface ReflectedType {
  fullName: string;
  decode(buf: Uint8Array): object;
  encode(msg: object): { finish(): Uint8Array };
  fromObject(obj: object): object;
  toObject(msg: object, opts: object): Record<string, unknown>;
}
export interface ReflectedMethod {
  name: string;
  resolvedRequestType: ReflectedType;
  resolvedResponseType: ReflectedType;
}
export interface ReflectedService {
  fullName: string;
  methods: Record<string, ReflectedMethod>;
  resolveAll(): ReflectedService;
}
interface ReflectedEnum {
  values: Record<string, number>;
}
interface ReflectedRoot {
  lookupType(name: string): ReflectedType;
  lookupService(name: string): ReflectedService;
  lookupEnum(name: string): ReflectedEnum;
}

const require = createRequire(import.meta.url);
export const root = require('@temporalio/proto/protos/json-module.js') as ReflectedRoot;

const typeCache = new Map<string, ReflectedType>();
export function lookupType(name: string): ReflectedType {
  let t = typeCache.get(name);
  if (!t) {
    t = root.lookupType(name);
    typeCache.set(name, t);
  }
  return t;
}

/** Plain-object form: int64 as number, enums as numbers, bytes as Buffer, unset fields absent. */
export const TO_OBJECT = { longs: Number, enums: Number };

export function decodeAs<T>(typeName: string, buf: Uint8Array): T {
  const t = lookupType(typeName);
  return t.toObject(t.decode(buf), TO_OBJECT) as T;
}

export function encodeAs(typeName: string, obj: object): Uint8Array {
  const t = lookupType(typeName);
  return t.encode(t.fromObject(obj)).finish();
}

/**
 * Encodes a plain object that already has the decoded shape (TO_OBJECT: numbers for int64
 * and enums, Buffers for bytes, nested plain objects), skipping protobufjs's fromObject
 * copy: the devserver's hot paths (history batches, responses) only build such objects.
 */
export function encodePlain(t: ReflectedType, obj: object): Uint8Array {
  const out = t.encode(obj).finish();
  if (VERIFY) {
    const ref = t.encode(t.fromObject(obj)).finish();
    if (Buffer.compare(Buffer.from(out), Buffer.from(ref)) !== 0) {
      console.error(`ENCODE MISMATCH ${t.fullName}`, JSON.stringify(obj).slice(0, 2000));
    }
  }
  return out;
}
const VERIFY = !!process.env.DEVSERVER_VERIFY_ENCODING;

export type Payload = temporal.api.common.v1.IPayload;
export type Payloads = temporal.api.common.v1.IPayloads;
export type Failure = temporal.api.failure.v1.IFailure;
/**
 * The generated interfaces type int64 as Long; decoded with TO_OBJECT they are numbers, so
 * the shapes the devserver builds and reads itself are declared here with numbers.
 */
export interface Timestamp {
  seconds: number;
  nanos: number;
}
export type Duration = Timestamp;
/** What a request may carry: generated Duration/Timestamp fields, read through Number(). */
export type DurationLike = { seconds?: unknown; nanos?: unknown } | null | undefined;
export interface HistoryEvent {
  eventId: number;
  eventTime?: Timestamp;
  eventType: number;
  [attributes: string]: unknown;
}
export type { temporal, google };

function enumValues(name: string): Record<string, number> {
  return root.lookupEnum(`temporal.api.enums.v1.${name}`).values;
}
export const EventType = enumValues('EventType');
export const CommandType = enumValues('CommandType');
export const CommandTypeName: Record<number, string> = Object.fromEntries(
  Object.entries(CommandType).map(([k, v]) => [v, k.replace(/^COMMAND_TYPE_/, '')]),
);
export const IndexedValueType = enumValues('IndexedValueType');

export const Status = {
  RUNNING: 1,
  COMPLETED: 2,
  FAILED: 3,
  CANCELED: 4,
  TERMINATED: 5,
  CONTINUED_AS_NEW: 6,
  TIMED_OUT: 7,
} as const;

export const TimeoutType = {
  START_TO_CLOSE: 1,
  SCHEDULE_TO_START: 2,
  SCHEDULE_TO_CLOSE: 3,
  HEARTBEAT: 4,
} as const;
export const RetryState = {
  IN_PROGRESS: 1,
  NON_RETRYABLE_FAILURE: 2,
  TIMEOUT: 3,
  MAXIMUM_ATTEMPTS_REACHED: 4,
  RETRY_POLICY_NOT_SET: 5,
  CANCEL_REQUESTED: 7,
} as const;
