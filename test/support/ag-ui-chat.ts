/**
 * An AG-UI client in Node, as an app builds one: `@ag-ui/client`'s `HttpAgent` pointed at
 * `countersignChat`'s `/ag-ui` route (see `startChatApp`), unchanged. It records every event as it
 * came over the wire, and every warning the client printed, so a test can check both against the
 * protocol.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { HttpAgent, type BaseEvent, type Interrupt, type ResumeEntry } from '@ag-ui/client';
import { EventSchema, InterruptSchema, RunFinishedOutcomeSchema } from '@ag-ui/core/schemas';
import { waitFor } from './wait-for.js';

/** How an AG-UI run ended, as the client saw it. */
export type Ending =
  | { outcome: 'success' }
  | { outcome: 'cancelled' }
  | { outcome: 'interrupt'; interrupts: Interrupt[] }
  | { outcome: 'error'; code?: string; message: string };

export class AgUiChat {
  readonly agent: HttpAgent;
  /** Every event the client took, in order, across its runs. */
  readonly events: BaseEvent[] = [];
  /** The body of each response, read beside the client. */
  private readonly bodies: Promise<string>[] = [];
  /** What the client warned of while it ran (a field it stripped, an event it dropped). */
  readonly warnings: string[] = [];

  constructor(url: string, threadId: string, user: string) {
    this.agent = new HttpAgent({
      url: `${url}/chat/ag-ui`,
      threadId,
      headers: { authorization: `Bearer ${user}` },
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        this.bodies.push(response.clone().text());
        return response;
      },
    });
  }

  /** Sends a user message and runs the agent until its AG-UI run ends. */
  say(text: string): Promise<Ending> {
    this.agent.addMessage({ id: randomUUID(), role: 'user', content: text });
    return this.run();
  }

  /** Runs the agent (again), with answers to the last run's interrupts. */
  run(resume?: ResumeEntry[]): Promise<Ending> {
    let ending: Ending | undefined;
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void this.warnings.push(args.map(String).join(' '));
    return this.agent
      .runAgent(resume ? { resume } : {}, {
        onEvent: ({ event }) => void this.events.push(event),
        onRunFinishedEvent: (finished) => {
          ending =
            finished.outcome === 'interrupt'
              ? { outcome: 'interrupt', interrupts: finished.interrupts }
              : { outcome: finished.outcome };
        },
        onRunErrorEvent: ({ event }) => {
          ending = { outcome: 'error', message: event.message, ...(event.code ? { code: event.code } : {}) };
        },
      })
      .then(() => {
        assert.ok(ending, 'the AG-UI run ended with RUN_FINISHED or RUN_ERROR');
        return ending;
      })
      .finally(() => {
        console.warn = warn;
      });
  }

  /** Waits until an event the client took matches. */
  until<T>(probe: (events: BaseEvent[]) => T | undefined, what: string): Promise<T> {
    return waitFor(async () => probe(this.events), what);
  }

  /** Countersign's part of the agent's state (STATE_SNAPSHOT). */
  get countersign(): {
    runId: string;
    status?: string;
    approvals: Record<string, Record<string, unknown>>;
    refused: Record<string, Record<string, unknown>>;
  } {
    return (this.agent.state as { countersign: AgUiChat['countersign'] }).countersign;
  }

  /**
   * Every event as it was sent, checked against `@ag-ui/core`'s schemas: each one of the protocol's
   * events, with no field the protocol does not name (the schemas keep unknown fields, which the
   * client would strip), and no warning from the client. Returns the events.
   */
  async checkWire(): Promise<Record<string, unknown>[]> {
    const sent = (await Promise.all(this.bodies)).flatMap((body) =>
      body
        .split('\n\n')
        .flatMap((block) => block.split('\n').filter((line) => line.startsWith('data: ')))
        .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>),
    );
    for (const event of sent) {
      const parsed = EventSchema.safeParse(event);
      assert.ok(parsed.success, `${JSON.stringify(event)}: ${parsed.error?.message}`);
      const schema = EventSchema.options.find((option) => option.shape.type.value === event.type)!;
      onlyKnownFields(event, Object.keys(schema.shape), String(event.type));
      if (event.type === 'RUN_FINISHED' && event.outcome) {
        const outcome = event.outcome as { type: string; interrupts?: Record<string, unknown>[] };
        const option = RunFinishedOutcomeSchema.options.find((o) => o.shape.type.value === outcome.type)!;
        onlyKnownFields(outcome, Object.keys(option.shape), 'RUN_FINISHED.outcome');
        for (const interrupt of outcome.interrupts ?? [])
          onlyKnownFields(interrupt, Object.keys(InterruptSchema.shape), 'an interrupt');
      }
    }
    assert.deepEqual(this.warnings, [], 'the AG-UI client took every event without a warning');
    return sent;
  }
}

function onlyKnownFields(value: object, known: string[], what: string) {
  const unknown = Object.keys(value).filter((key) => !known.includes(key));
  assert.deepEqual(unknown, [], `${what} carries fields the protocol does not name`);
}
