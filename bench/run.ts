import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild } from '../test/faults/support/child.js';
import { parseBenchArgs } from './lib/args.js';
import { machineInfo } from './lib/machine.js';
import { ensurePeersInstalled } from './lib/peers-install.js';
import { summarize, type Summary } from './lib/stats.js';
import { measureSystem, type SystemResult } from './measure.js';
import { startSystem } from './systems.js';
import { formatTables } from './table.js';
import { checkTargets, formatTargets } from './targets.js';

const PEERS = new Set(['langgraph', 'mastra', 'openai-agents', 'temporal-openai-agents']);

const args = parseBenchArgs(process.argv.slice(2));
if (args.systems.some((s) => PEERS.has(s))) ensurePeersInstalled();

const workDir = mkdtempSync(path.join(os.tmpdir(), 'countersign-bench-'));
const model = await startChild({ label: 'fake model', file: 'bench/model/serve.ts', ready: 'ipc' });
const modelUrl = String(model.info.url);
const results: SystemResult[] = [];
const failures: Record<string, string> = {};
let floor: Summary | undefined;

const outDir = path.resolve(args.outDir);
mkdirSync(outDir, { recursive: true });
const file = path.join(outDir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
const machine = machineInfo();
/** Rewritten after every system, so a long run stopped midway keeps what it measured. */
const save = () =>
  writeFileSync(
    file,
    `${JSON.stringify({ args, machine, floor, results, failures, targets: checkTargets(results) }, null, 2)}\n`,
  );

try {
  if (args.floorRuns > 0) {
    const floorChild = await startChild({
      label: 'floor',
      file: 'bench/model/floor.ts',
      env: { BENCH_MODEL_URL: modelUrl },
      ready: 'ipc',
    });
    floor = summarize(await floorChild.request<number[]>({ runs: args.floorRuns }));
    await floorChild.kill();
  }
  for (const name of args.systems) {
    console.log(`bench: ${name}...`);
    let system;
    try {
      system = await startSystem(name, { modelUrl, workDir, server: args.server });
      const result = await measureSystem(system, args, model.pid);
      results.push(result);
      if (result.failure) {
        failures[name] = result.failure;
        console.error(`bench: ${name} failed in ${result.failure}`);
      }
    } catch (err) {
      // One system failing must not hide the others' figures; the failure is reported as such.
      failures[name] = err instanceof Error ? err.message : String(err);
      console.error(`bench: ${name} failed: ${failures[name]}`);
    } finally {
      await system?.stop();
    }
    save();
  }
} finally {
  await model.kill();
  rmSync(workDir, { recursive: true, force: true });
}

console.log(`\n${formatTables(results, floor)}`);
const targets = formatTargets(checkTargets(results));
if (targets) console.log(`\n${targets}`);
for (const [name, message] of Object.entries(failures))
  console.log(`\n${name}: FAILED: ${message.split('\n')[0]}`);
save();
console.log(`\nbench: wrote ${path.relative(process.cwd(), file)}`);
if (Object.keys(failures).length > 0) process.exitCode = 1;
