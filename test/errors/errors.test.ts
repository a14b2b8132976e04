import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ApplicationFailure, defaultPayloadConverter, ensureApplicationFailure } from '@temporalio/common';
import { openApiDocument } from '../../api/openapi.js';
import { failureConverter } from '../../codec/failure-converter.js';
import * as errors from '../../errors/index.js';
import {
  API_ERROR_CODES,
  ApiErrorCode,
  CliError,
  CountersignError,
  DevServerPortTaken,
  HttpError,
  OutcomeUnknownError,
  UnknownApprovalError,
} from '../../errors/index.js';
// The names each error had before it joined the errors module, still exported from there.
import { CliError as CliErrorOfCli } from '../../cli/http.js';
import { UnknownApprovalError as UnknownApprovalOfClient } from '../../client/decide.js';
import { OutcomeUnknownError as OutcomeUnknownOfDefine } from '../../define/index.js';
import { HttpError as HttpErrorOfApi } from '../../api/errors.js';
import { DevServerPortTaken as PortTakenOfTemporal } from '../../temporal/dev-server.js';
import { assertListedErrorCode } from '../support/listed-error-code.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'countersign-errors-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A second copy of the errors module, as a team gets when two versions of the package nest in its
 * node_modules: the same source at another path, so every class in it is another object.
 */
async function secondCopy(): Promise<typeof errors> {
  cpSync(path.join(root, 'errors'), path.join(scratch, 'errors'), { recursive: true });
  symlinkSync(path.join(root, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
  return (await import(pathToFileURL(path.join(scratch, 'errors/index.ts')).href)) as typeof errors;
}

/** One instance of each public error, made by the given copy of the module. */
function oneOfEach(copy: typeof errors) {
  return {
    OutcomeUnknownError: new copy.OutcomeUnknownError('the mail server did not confirm'),
    UnknownApprovalError: new copy.UnknownApprovalError('run-1.2'),
    DevServerPortTaken: new copy.DevServerPortTaken('Temporal dev server: address already in use'),
    CliError: new copy.CliError('HTTP 404: no approval run-1.2.', ['  /args: bad']),
    HttpError: new copy.HttpError(409, 'run run-1 has already ended', { code: 'run_closed' }),
  };
}

test('instanceof recognises an error made by another copy of the package, class by class', async () => {
  const other = await secondCopy();
  assert.notEqual(other.OutcomeUnknownError, OutcomeUnknownError, 'the copy has classes of its own');
  for (const [made, checked] of [
    [other, errors],
    [errors, other],
  ] as const) {
    const instances = oneOfEach(made);
    for (const [name, error] of Object.entries(instances)) {
      assert.ok(error instanceof checked.CountersignError, `${name} is a CountersignError`);
      assert.ok(error instanceof Error, `${name} is an Error`);
      for (const klass of Object.keys(instances) as (keyof typeof instances)[]) {
        assert.equal(error instanceof checked[klass], klass === name, `${name} instanceof ${klass}`);
      }
    }
  }
  assert.ok(!(new Error('plain') instanceof other.CountersignError));
  for (const value of [null, undefined, 'OutcomeUnknownError', 42, { name: 'OutcomeUnknownError' }]) {
    assert.ok(!(value instanceof OutcomeUnknownError), String(value));
  }
});

test('every public error has a stable code and its class name as its name', () => {
  const codes = Object.fromEntries(
    Object.entries(oneOfEach(errors)).map(([name, error]) => {
      assert.equal(error.name, name);
      assert.ok(String(error).startsWith(`${name}: `), String(error));
      assert.ok(error.stack?.startsWith(`${name}: `), error.stack);
      return [name, error.code];
    }),
  );
  assert.deepEqual(codes, {
    OutcomeUnknownError: 'outcome_unknown',
    UnknownApprovalError: 'unknown_approval',
    DevServerPortTaken: 'dev_server_port_taken',
    CliError: 'cli_error',
    HttpError: 'run_closed',
  });
});

test('each error keeps its message and fields, and its old name where it was', () => {
  const unknown = new UnknownApprovalError('run-1.2');
  assert.equal(unknown.message, 'no approval run-1.2');
  assert.equal(unknown.trackingId, 'run-1.2');
  assert.deepEqual(new CliError('no').details, []);
  const http = new HttpError(503, 'busy', { code: 'temporal_unavailable', retryAfter: 1 });
  assert.deepEqual(
    [http.status, http.message, http.code, http.details.retryAfter],
    [503, 'busy', 'temporal_unavailable', 1],
  );
  assert.equal(CliErrorOfCli, CliError);
  assert.equal(UnknownApprovalOfClient, UnknownApprovalError);
  assert.equal(OutcomeUnknownOfDefine, OutcomeUnknownError);
  assert.equal(HttpErrorOfApi, HttpError);
  assert.equal(PortTakenOfTemporal, DevServerPortTaken);
});

test("a team's own subclass of an error is told apart from its parent, and may name itself", () => {
  class ReceiptLost extends OutcomeUnknownError {
    constructor() {
      super('the receipt never came');
      this.name = 'ReceiptLost';
    }
  }
  const lost = new ReceiptLost();
  assert.ok(
    lost instanceof ReceiptLost && lost instanceof OutcomeUnknownError && lost instanceof CountersignError,
  );
  assert.ok(!(new OutcomeUnknownError('x') instanceof ReceiptLost));
  assert.equal(lost.name, 'ReceiptLost');
  assert.equal(lost.code, 'outcome_unknown');
  assert.equal(new OutcomeUnknownError('x').name, 'OutcomeUnknownError', 'the prototype keeps its name');
});

test('an OutcomeUnknownError leaves an activity as the failure type it always had, through the encrypting converter', () => {
  // What the worker does with an error a tool's execute throws: ensureApplicationFailure, then the
  // failure converter createWorker bundles at FAILURE_CONVERTER_PATH.
  const thrown = new OutcomeUnknownError('the mail server did not confirm');
  const failure = failureConverter.errorToFailure(ensureApplicationFailure(thrown), defaultPayloadConverter);
  assert.equal(failure.applicationFailureInfo?.type, 'OutcomeUnknownError');
  assert.equal(failure.message, 'Encoded failure', 'the message travels encoded');
  const read = failureConverter.failureToError(failure, defaultPayloadConverter);
  assert.ok(read instanceof ApplicationFailure);
  assert.equal(read.type, 'OutcomeUnknownError');
  assert.equal(read.message, 'the mail server did not confirm');
});

test('the API error codes are one closed list, which TypeScript and the error schema hold to', () => {
  assert.equal(new Set(API_ERROR_CODES).size, API_ERROR_CODES.length, 'no code twice');
  for (const code of API_ERROR_CODES) assert.match(code, /^[a-z]+(_[a-z]+)*$/);
  assert.ok(!ApiErrorCode.safeParse('no_such_code').success);
  // @ts-expect-error -- a code outside API_ERROR_CODES does not compile
  new HttpError(400, 'refused', { code: 'no_such_code' });
  // The harness check every API test's requests pass through.
  assert.throws(() =>
    assertListedErrorCode('/api/x', 400, { error: { message: 'm', code: 'no_such_code' } }),
  );
  assert.throws(() => assertListedErrorCode('/api/x', 400, { error: { message: 'm' } }));
  assertListedErrorCode('/api/x', 409, { error: { message: 'm', code: 'run_closed' } });
});

test('the OpenAPI error schema lists exactly the API error codes, and requires one', () => {
  type Schema = { properties: Record<string, Schema>; required?: string[]; enum?: string[]; $ref?: string };
  const schemas = (openApiDocument('http://localhost') as { components: { schemas: Record<string, Schema> } })
    .components.schemas;
  const error = schemas.Error!.properties.error!;
  assert.ok(error.required?.includes('code'));
  assert.equal(error.properties.code!.$ref, '#/components/schemas/ErrorCode');
  assert.deepEqual(schemas.ErrorCode!.enum, [...API_ERROR_CODES]);
});
