import { EventType, decodeAs, encodePlain, lookupType, type HistoryEvent } from './proto.js';
import { msTimestamp } from './time.js';

/** Event names in PascalCase ("TimerFired") map to EVENT_TYPE_TIMER_FIRED and timerFiredEventAttributes. */
export type EventName = string;

function typeOf(name: EventName): number {
  const t = EventType[`EVENT_TYPE_${name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`];
  if (t === undefined) throw new Error(`unknown event type ${name}`);
  return t;
}

export function makeEvent(name: EventName, attrs: object, eventId: number, timeMs: number): HistoryEvent {
  const key = `${name[0]!.toLowerCase()}${name.slice(1)}EventAttributes`;
  return { eventId, eventTime: msTimestamp(timeMs), eventType: typeOf(name), [key]: attrs };
}

/** The single `...EventAttributes` object of a decoded event. */
export function attributesOf(event: HistoryEvent): Record<string, unknown> {
  for (const [k, v] of Object.entries(event)) {
    if (k.endsWith('EventAttributes') && v) return v as Record<string, unknown>;
  }
  throw new Error(`event ${event.eventId} has no attributes`);
}

export function encodeEvent(event: HistoryEvent): Uint8Array {
  return encodePlain(lookupType('temporal.api.history.v1.HistoryEvent'), event);
}

export function decodeEvent(buf: Uint8Array): HistoryEvent {
  return decodeAs('temporal.api.history.v1.HistoryEvent', buf);
}

export function encodeHistory(events: HistoryEvent[]): Uint8Array {
  return encodePlain(lookupType('temporal.api.history.v1.History'), { events });
}

export function decodeHistory(buf: Uint8Array): HistoryEvent[] {
  return decodeAs<{ events?: HistoryEvent[] }>('temporal.api.history.v1.History', buf).events ?? [];
}

export const CLOSE_EVENT_TYPES = new Set(
  [
    'WorkflowExecutionCompleted',
    'WorkflowExecutionFailed',
    'WorkflowExecutionTimedOut',
    'WorkflowExecutionCanceled',
    'WorkflowExecutionTerminated',
    'WorkflowExecutionContinuedAsNew',
  ].map(typeOf),
);

export const EV = {
  TimerFired: typeOf('TimerFired'),
} as const;
