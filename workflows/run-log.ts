import type { RunEvent } from '../protocol/index.js';

type NewEvent = Omit<RunEvent, 'id' | 'runId' | 'at'>;

/**
 * The run's event log: every request, decision (refused ones too), tool run and the run's end.
 * The audit trail is its approval entries; live streams resume from its ids.
 */
export class RunLog {
  readonly events: RunEvent[];

  /**
   * `events`: the log of the run this one continues, if it does; ids go on from there. `added` is
   * told of each new event (the run stamps its change time).
   */
  constructor(
    private readonly runId: string,
    events: RunEvent[] = [],
    private readonly added: () => void = () => undefined,
  ) {
    this.events = [...events];
  }

  add(event: NewEvent): RunEvent {
    // Workflow time: deterministic on replay.
    const entry: RunEvent = {
      id: this.events.length + 1,
      runId: this.runId,
      at: new Date().toISOString(),
      ...event,
    };
    this.events.push(entry);
    this.added();
    return entry;
  }

  after(id: number): RunEvent[] {
    return this.events.filter((event) => event.id > id);
  }
}
