// Keeps the histories this release recorded (test/histories/*.json) in
// test/histories/releases/<version>/, where re-recording never reaches: every later version's
// `npm test` replays them, as a deploy replays the runs this release left in flight.
// Run it when cutting a release: `npm run histories:freeze`.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const histories = new URL('test/histories/', root);
const target = new URL(`releases/${version}/`, histories);
if (existsSync(target)) {
  console.error(`test/histories/releases/${version}/ exists: a release's histories are frozen once`);
  process.exit(1);
}
mkdirSync(target, { recursive: true });
const names = readdirSync(histories).filter((name) => name.endsWith('.json'));
for (const name of names) copyFileSync(new URL(name, histories), new URL(name, target));
console.log(`froze ${names.length} histories in test/histories/releases/${version}/`);
