import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openApiDocument } from '../../api/openapi.js';

/** The HTTP methods an OpenAPI path item can hold an operation under. */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

test('every operation of the OpenAPI document has an operationId, none used twice', () => {
  const { paths } = openApiDocument('http://localhost') as {
    paths: Record<string, Record<string, { operationId?: unknown }>>;
  };
  const ids: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      assert.equal(
        typeof operation.operationId,
        'string',
        `${method.toUpperCase()} ${path} has an operationId`,
      );
      // Generated clients make method names of them.
      assert.match(operation.operationId as string, /^[a-z][A-Za-z]*$/, `${method.toUpperCase()} ${path}`);
      ids.push(operation.operationId as string);
    }
  }
  assert.ok(ids.length >= 20, `${ids.length} operations`);
  assert.deepEqual(
    ids.filter((id, index) => ids.indexOf(id) !== index),
    [],
    'no operationId is used twice',
  );
});
