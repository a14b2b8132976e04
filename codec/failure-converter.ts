import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Failures with their message and stack trace moved into a payload, where the payload codec
 * encrypts them: a tool's error often quotes its arguments. Readers need nothing: every failure
 * converter decodes such failures. `createWorker` uses it (through
 * {@link FAILURE_CONVERTER_PATH}) whenever it is given a payload codec.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
