/**
 * Writes protocol/generated/workflow-schemas.ts: what the workflow needs of the zod schemas, derived
 * from them, so the workflow bundle carries no zod (the SDK evaluates a bundle's modules once per
 * run, and zod's were most of that cost in time and memory). `npm test` checks the file is current.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderWorkflowSchemas } from '../protocol/derive-workflow-schemas.js';

const target = fileURLToPath(new URL('../protocol/generated/workflow-schemas.ts', import.meta.url));
writeFileSync(target, renderWorkflowSchemas());
console.log(`wrote ${target}`);
