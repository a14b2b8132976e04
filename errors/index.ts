/**
 * Countersign's errors: the base class, each public error under it, and the closed list of the
 * REST API's error codes.
 *
 * @module
 */
export { CountersignError } from './countersign-error.js';
export { OutcomeUnknownError } from './outcome-unknown.js';
export { UnknownApprovalError } from './unknown-approval.js';
export { DevServerPortTaken } from './dev-server-port-taken.js';
export { CliError } from './cli-error.js';
export { HttpError } from './http-error.js';
export { API_ERROR_CODES, ApiErrorCode } from './api-error-codes.js';
