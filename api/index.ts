/**
 * `countersign/api`: the REST API, its OpenAPI document and the inbox, as an express router to
 * mount in your own app (or a whole app of their own). It starts runs and decides through a
 * Temporal client: a service that only serves the API does not install `@temporalio/worker`.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { countersignRouter } from 'countersign/api';
 * ```
 *
 * @module
 */
export {
  countersignRouter,
  createApi,
  type CountersignApiOptions,
  type Authenticate,
  type FindApprover,
} from './create-api.js';
export { countersignChat, type CountersignChatOptions } from './chat/chat-router.js';
export type { AgUiInterrupt, AgUiState } from './chat/ag-ui-events.js';
export type { AgUiDecision } from './chat/ag-ui-request.js';
export { servingGate, type ServingGate, type ServingGateOptions } from './serving-gate.js';
export type { SlackRouterOptions, FindSlackApprover, SlackUser } from './slack/options.js';
export { HttpError } from '../errors/http-error.js';
