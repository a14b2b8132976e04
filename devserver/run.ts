import { randomUUID } from 'node:crypto';
import { decodeAs, encodeAs, Status, type HistoryEvent, type Payload, type temporal } from './proto.js';
import { makeEvent, type EventName } from './history.js';
import type { RunState } from './state.js';
import type { PendingQuery } from './queries.js';
import type { UpdateEntry } from './updates.js';

export const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
export const unb64 = (s: string): Buffer => Buffer.from(s, 'base64');

/** One workflow run in memory: its persisted state plus what only lives while we run. */
export class Run {
  rowId: number | undefined;
  /** Tasks already handed to matching, so a deadline does not offer them twice. */
  readonly offered = new Set<string>();
  /** Queries to deliver with the next workflow task, keyed by query id. */
  readonly attachedQueries = new Map<string, PendingQuery>();
  /** Queries that came while a workflow task ran; routed once it ends. */
  heldQueries: PendingQuery[] = [];
  /** The query-only task handed to a worker; the SDK answers one per run at a time. */
  queryTask: PendingQuery | undefined;
  /** Queries waiting for `queryTask` to be answered. */
  queuedQueries: PendingQuery[] = [];
  readonly historyWaiters = new Set<() => void>();
  /** Its updates by id; undefined for a run loaded from disk until they are read from its history. */
  updates: Map<string, UpdateEntry> | undefined;
  /** The sticky queue of the worker that has this run cached; not persisted (after a restart, tasks use the normal queue). */
  sticky: { queue: string; scheduleToStartMs: number } | undefined;
  /**
   * The run's latest committed events, ids `from` up to nextEventId - 1, kept so that the hot
   * reads (a sticky task's new events, a new run's first task, the close event) need neither
   * SQLite nor a decode. Events up to the last completed workflow task are dropped; undefined
   * when not known (after a restart), in which case reads go to SQLite.
   */
  tail: { from: number; events: HistoryEvent[] } | undefined;
  /** Set when a change would update the run's list entry; the engine records it on commit. */
  visibilityChanged = false;
  private saCache: Record<string, Payload> | undefined;
  private memoCache: Record<string, Payload> | undefined;

  constructor(
    public s: RunState,
    rowId?: number,
  ) {
    this.rowId = rowId;
    if (rowId === undefined) this.updates = new Map();
  }

  get key(): string {
    return this.s.runId;
  }

  get running(): boolean {
    return this.s.status === Status.RUNNING;
  }

  get searchAttributes(): Record<string, Payload> {
    this.saCache ??= this.s.searchAttributes
      ? (decodeAs<temporal.api.common.v1.ISearchAttributes>(
          'temporal.api.common.v1.SearchAttributes',
          unb64(this.s.searchAttributes),
        ).indexedFields ?? {})
      : {};
    return this.saCache;
  }

  set searchAttributes(fields: Record<string, Payload>) {
    this.saCache = fields;
    this.visibilityChanged = true;
    this.s.searchAttributes =
      Object.keys(fields).length > 0
        ? b64(encodeAs('temporal.api.common.v1.SearchAttributes', { indexedFields: fields }))
        : undefined;
  }

  get memo(): Record<string, Payload> {
    this.memoCache ??= this.s.memo
      ? (decodeAs<temporal.api.common.v1.IMemo>('temporal.api.common.v1.Memo', unb64(this.s.memo)).fields ??
        {})
      : {};
    return this.memoCache;
  }

  set memo(fields: Record<string, Payload>) {
    this.memoCache = fields;
    this.visibilityChanged = true;
    this.s.memo =
      Object.keys(fields).length > 0 ? b64(encodeAs('temporal.api.common.v1.Memo', { fields })) : undefined;
  }
}

/**
 * One atomic change: events appended and runs touched are written in a single SQLite
 * transaction by Engine.exec, and only then do effects (answers, matching, timers) run.
 */
export class Txn {
  readonly now = Date.now();
  readonly batches = new Map<Run, HistoryEvent[]>();
  readonly touched = new Set<Run>();
  readonly effects: (() => void)[] = [];

  append(run: Run, name: EventName, attrs: object): number {
    const id = run.s.nextEventId++;
    let batch = this.batches.get(run);
    if (!batch) {
      batch = [];
      this.batches.set(run, batch);
    }
    batch.push(makeEvent(name, attrs, id, this.now));
    this.touched.add(run);
    return id;
  }

  /** Appends an already built event (from the buffer), renumbered. */
  appendEvent(run: Run, event: HistoryEvent): number {
    const id = run.s.nextEventId++;
    let batch = this.batches.get(run);
    if (!batch) {
      batch = [];
      this.batches.set(run, batch);
    }
    batch.push({ ...event, eventId: id });
    this.touched.add(run);
    return id;
  }

  touch(run: Run): void {
    this.touched.add(run);
  }

  after(fn: () => void): void {
    this.effects.push(fn);
  }
}

export const newId = (): string => randomUUID();
