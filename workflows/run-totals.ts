import type { JsonObject, ToolSpec } from '../protocol/index.js';
import { numberAt, runTotalsOf, type CallTotals } from './evaluate-policy.js';

/** One call a cumulative limit counts: the values of the arguments its tool's policy totals. */
export interface CountedCall {
  id: string;
  tool: string;
  values: Record<string, number>;
}

/** What a plan's checker builds on: the run's totals of a tool, and then each step added to them. */
export interface RunningTotals extends CallTotals {
  /** These totals with one more call of the tool. */
  plus(args: JsonObject): RunningTotals;
}

/**
 * The calls of the run that cumulative limits count, by call id, for tools whose policy has such a
 * limit (no other tool's calls are kept). A call counts from its proposal, whoever proposed it, until
 * it is refused; it goes along when the run continues as new.
 */
export class RunTotals {
  private readonly calls = new Map<string, CountedCall>();

  constructor(
    private readonly tools: ReadonlyMap<string, ToolSpec>,
    carried: CountedCall[] = [],
  ) {
    for (const call of carried) this.calls.set(call.id, call);
  }

  /** What counts of `tool`'s calls, leaving out the calls `except` names (the one being judged). */
  of(tool: string, except: Iterable<string> = []): RunningTotals {
    const left = new Set(except);
    const counted = [...this.calls.values()].filter((c) => c.tool === tool && !left.has(c.id));
    return running(
      counted.map((c) => c.values),
      this.tools.get(tool),
    );
  }

  /** Counts a call, or its new arguments after an edit. */
  count(id: string, tool: ToolSpec, args: JsonObject): void {
    const kept = runTotalsOf(tool);
    if (!kept) return;
    this.calls.set(id, { id, tool: tool.name, values: valuesOf(kept.paths, args) });
  }

  /** A refused call no longer counts. */
  drop(id: string): void {
    this.calls.delete(id);
  }

  carry(): CountedCall[] {
    return [...this.calls.values()];
  }
}

function valuesOf(paths: string[], args: JsonObject): Record<string, number> {
  return Object.fromEntries(paths.map((path) => [path, numberAt(args, path)]));
}

function running(values: Record<string, number>[], tool: ToolSpec | undefined): RunningTotals {
  return {
    sum: (path) => values.reduce((total, v) => total + (v[path] ?? 0), 0),
    count: () => values.length,
    plus: (args) => {
      const kept = tool && runTotalsOf(tool);
      return kept ? running([...values, valuesOf(kept.paths, args)], tool) : running(values, tool);
    },
  };
}
