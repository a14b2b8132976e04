#!/usr/bin/env node
// The `countersign` CLI. The sources are TypeScript; tsx's loader runs them without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
await main(process.argv);
