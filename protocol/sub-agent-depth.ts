// Apart from the schemas, so the workflow bundle takes the bound without zod.
/**
 * How deep sub-agents nest: a root agent's sub-agent is at depth 1, its own sub-agent at depth 2,
 * and so on to this. A definition deeper than this is refused by `defineAgent`; a call that would
 * go deeper (a spec built by hand) is answered as a failed tool (`sub_agent_too_deep`).
 *
 * @example
 * ```ts
 * import { MAX_SUB_AGENT_DEPTH } from 'countersign';
 *
 * console.log(`sub-agents nest at most ${MAX_SUB_AGENT_DEPTH} deep`); // 3
 * ```
 */
export const MAX_SUB_AGENT_DEPTH = 3;
