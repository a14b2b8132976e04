import { patched } from '@temporalio/workflow';

// Every change to what the workflow does is behind a patch, so histories recorded before it replay.

/** Decisions name the proposal's revision (histories before it had none). */
export const REVISIONS_PATCH = 'countersign-decision-revisions';
/** An edit describes the new proposal (the header read the model's before). */
export const DESCRIBE_EDITS_PATCH = 'countersign-describe-edits';
/** An approval's reminders are sent (runs recorded before waited on the deadline's timer alone). */
export const REMINDERS_PATCH = 'countersign-deadline-reminders';
/** A result review waits for the policy's quorum (it asked one approver before). */
export const RESULT_QUORUM_PATCH = 'countersign-result-review-quorum';
/**
 * Tools that do not dedupe are attempted once at a time and an attempt nobody knows the end of goes
 * to a person; runs recorded before retried every tool alike, three times.
 */
export const UNKNOWN_OUTCOMES_PATCH = 'countersign-unknown-outcomes';
/** The messages posted for an approval are updated as it changes (runs recorded before never were). */
export const FOLLOW_MESSAGES_PATCH = 'countersign-messages-follow-approval';
/**
 * A run paused as the model gave its final answer waits for the resume before it finishes, so a
 * correction given then is read by the model; runs recorded before finished at once.
 */
export const PAUSE_BEFORE_FINISH_PATCH = 'countersign-pause-before-finish';
/**
 * A run whose turn waits only on first decisions may continue as new with its approvals pending;
 * runs recorded before waited for the turn's end.
 */
export const CONTINUE_MID_TURN_PATCH = 'countersign-continue-mid-turn';
/**
 * A run stamps `CountersignChangedAt` when it changes, so the inbox feed lists only changed runs.
 * Runs recorded before never stamped: asked where a stamp would go, the patch stays off while such a
 * history replays, and turns on at the run's first step run live, whose stamp then shows that change.
 */
export const CHANGE_TIME_PATCH = 'countersign-change-time';

/**
 * A model call whose conversation is small carries it; runs recorded before named the transcript,
 * for the activity to read by a query: a round trip through the server and the worker each call.
 */
export const INLINE_MODEL_INPUT_PATCH = 'countersign-inline-model-input';

/**
 * Taken once, as a run starts, for every patch above, and for writing to the server's lists only
 * what changed. A patch is a marker in the history and a `TemporalChangeVersion` upsert, a rewrite
 * of the run's row in the server's lists with all its indexes: a run taking each patch where it is
 * first asked paid that once per patch. A patch added later is asked on its own, until the next
 * generation names it too.
 */
export const GENERATION_PATCH = 'countersign-generation-1';
const GENERATION_1 = new Set([
  REVISIONS_PATCH,
  DESCRIBE_EDITS_PATCH,
  REMINDERS_PATCH,
  RESULT_QUORUM_PATCH,
  UNKNOWN_OUTCOMES_PATCH,
  FOLLOW_MESSAGES_PATCH,
  PAUSE_BEFORE_FINISH_PATCH,
  CONTINUE_MID_TURN_PATCH,
  CHANGE_TIME_PATCH,
]);
/** The first generation and the model input carried inline. */
export const GENERATION_2_PATCH = 'countersign-generation-2';
const GENERATION_2 = new Set([...GENERATION_1, INLINE_MODEL_INPUT_PATCH]);

// Per run: the SDK gives each workflow execution its own module state.
let generation: ReadonlySet<string> | undefined;

/**
 * Asked once, first thing in each execution, the newest generation first: a new run records only
 * that one, a history replays with the generation it recorded (or none, recorded before them).
 * True for a run of any generation: one that writes to the server's lists only what changed.
 */
export function takeGeneration(): boolean {
  generation = patched(GENERATION_2_PATCH)
    ? GENERATION_2
    : patched(GENERATION_PATCH)
      ? GENERATION_1
      : undefined;
  return generation !== undefined;
}

/** Whether the run takes the patch: by its generation, or asked where the change is. */
export function isPatched(patchId: string): boolean {
  return generation?.has(patchId) === true || patched(patchId);
}
