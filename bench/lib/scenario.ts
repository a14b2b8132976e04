/**
 * The one human-in-the-loop scenario every system runs: the model proposes one gated call of
 * `bench_action`, a human approves it, the tool runs, and the model answers.
 */
export const TOOL_NAME = 'bench_action';
export const TOOL_DESCRIPTION = 'Perform the benchmark action for a reference (needs approval).';
export const MODEL_NAME = 'bench-model';
export const INSTRUCTIONS = 'Call bench_action with the reference you are given, then report its result.';
export const FINAL_PREFIX = 'Done: ';

/** The tool's effect: cheap and deterministic, so every system does the same work. */
export function toolResult(ref: string): string {
  return `performed ${ref}`;
}

/** The user input of run `i`; the fake model reads the reference back out of it. */
export function inputFor(system: string, i: number): string {
  return `ref=${system}-${i}-${process.pid}`;
}

export function refOf(input: string): string {
  return input.startsWith('ref=') ? input.slice(4) : input;
}
