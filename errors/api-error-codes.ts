import { z } from 'zod';

/**
 * Every `code` an error body of the REST API carries (`{ error: { code, message } }`), with the
 * status it comes with. The list is closed: the API answers no other code, a client may `switch`
 * over it, and the OpenAPI document lists it as the `ErrorCode` schema. A code is stable: it is
 * never renamed or given another meaning.
 *
 * @example
 * ```ts
 * import { API_ERROR_CODES, type ApiErrorCode } from 'countersign';
 *
 * const body = (await response.json()) as { error: { code: ApiErrorCode; message: string } };
 * if (body.error.code === 'stale_revision') console.log('the proposal changed: show it again');
 * console.log(API_ERROR_CODES.length, 'codes');
 * ```
 */
export const API_ERROR_CODES = [
  // The request itself
  'invalid_request', // 400: a body, query, parameter or header failed validation; `fields` says where
  'invalid_json', // 400: the body is not JSON
  'bad_request', // 400: the request is malformed (a broken %-escape in the path)
  'too_deep', // 400: the body nests deeper than the API reads
  'too_large', // 413: the body is over the route's limit
  'unsupported_media_type', // 415: the body was not sent as application/json
  'invalid_page_token', // 422: a pageToken this API did not return for this very list
  'signing_secret_mismatch', // 422 (pageToken), 400 (email link page): signed with another signing secret
  'method_not_allowed', // 405: the path does not take this method (see Allow)
  'not_found', // 404: no such route, run (or none the caller may read), stored output or namespace
  // Who is asking
  'unauthorized', // 401: no valid bearer token
  'slack_signature_invalid', // 401: a request to the Slack endpoint Slack did not sign in the last five minutes
  'identity_not_supported', // 403: the identity `authenticate` gave breaks the approver rules
  'cross_site_request', // 403: another site's page had the browser send a state-changing request
  'origin_not_allowed', // 403: a codec preflight from an origin not in codecCorsOrigins
  'role_not_allowed', // 403: the caller holds none of the roles this needs
  // Runs
  'unknown_agent', // 422: no agent of that name runs here
  'run_closed', // 409: the run has already ended
  'already_paused', // 409
  'not_paused', // 409
  'no_content_store', // 404: the API was given no content store
  'content_store_failed', // 502: the content store did not return a stored output
  'content_store_mismatch', // 502: the output was kept in another content store than this API's
  'too_many_streams', // 429: the caller or the API holds as many event streams as it may
  // Decisions (the workflow's refusals among them, see RefusalCode)
  'unknown_approval', // 404: no approval answers to this tracking id
  'already_settled', // 409
  'already_approved_by_you', // 409: this approver's sign-off already counts toward the quorum
  'link_used', // 409: an email link is single-use
  'decision_not_allowed', // 400 or 403: this decision type is not allowed here
  'invalid_arguments', // 400: edited arguments fail the tool's schema; `fields` says where
  'policy_denied', // 400: the policy would deny the edited call
  'self_approval', // 403: the requester may not approve their own run's call
  'stale_revision', // 412: the proposal changed since its author saw it; `current` is the proposal now
  'revision_required', // 428: no If-Match names the revision decided on
  'idempotency_key_reused', // 422: the Idempotency-Key went with another request
  'secret_input_unavailable', // 501: the API holds no secret keys to seal a secret with
  'standing_not_allowed', // 400: a standing approval where the tool's policy allows none
  'standing_ended', // 409: the standing approval has already ended (expired, used up, revoked)
  // Chat front ends (countersignChat)
  'chat_turn_in_progress', // 409: the chat's previous turn has not ended (it waits for approvals)
  'chat_turn_missing', // 409: the messages name a turn whose previous turn this chat never had
  'chat_not_yours', // 403: only the person who started a chat adds turns to it
  // The payload codec endpoint
  'no_payload_codec', // 404: the API was given no payloadCodec
  'encode_failed', // 400: the codec refused a payload
  'decode_failed', // 400: the codec refused a payload (a key it does not hold, altered data)
  // The service
  'starting', // 503: the API is starting; retry after Retry-After
  'shutting_down', // 503
  'temporal_unavailable', // 503: Temporal is unavailable or busy; retry after Retry-After
  'worker_not_answering', // 503: the run's worker did not answer within the API's bound
  'internal', // 500: a bug; the API logs it
] as const;

/**
 * One of {@link API_ERROR_CODES}, as a zod enum: the error body's schema uses it, so an answer
 * with another code breaks the API's own schema.
 *
 * @example
 * ```ts
 * import { ApiErrorCode } from 'countersign';
 *
 * ApiErrorCode.parse('stale_revision');
 * ```
 */
export const ApiErrorCode = z.enum(API_ERROR_CODES);
export type ApiErrorCode = z.infer<typeof ApiErrorCode>;
