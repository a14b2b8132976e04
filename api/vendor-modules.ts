import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type RequestHandler } from 'express';

/**
 * The browser build of the JSON Schema library the workflow checks decisions with, so the inbox
 * checks an edit as it is typed by the same rules (web/js/validate.js imports it from
 * `vendor/json-schema/` beside its page, so under any mount). Resolved from this file when the
 * router is made: the copy installed with the package, wherever that is. It imports nothing else.
 */
export function jsonSchemaModules(): RequestHandler {
  const manifest = createRequire(import.meta.url).resolve('@cfworker/json-schema/package.json');
  return express.static(path.join(path.dirname(manifest), 'dist', 'esm'), { index: false });
}
