import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeBlocks, docFiles } from './doc-files.js';

const readme = docFiles().find((doc) => doc.path === 'README.md')!;
/** What a newcomer sees before scrolling. */
const firstScreen = readme.text.split('\n').slice(0, 50).join('\n');

test('the README is short enough to read: at most 250 lines, the rest in docs/', () => {
  const lines = readme.text.trimEnd().split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines`);
});

test("the README's first screen shows the quick start and the example of adding it to a service", () => {
  for (const command of ['npm ci', 'npm start', 'npm test'])
    assert.match(firstScreen, new RegExp(`^${command}\\b`, 'm'));
  const example = codeBlocks(readme).find((block) => block.lang === 'ts')!;
  assert.match(example.code, /defineTool\(/);
  assert.match(example.code, /createWorker\(/);
  assert.match(example.code, /countersignRouter\(/);
  assert.ok(example.line < 50, `the example starts on line ${example.line}`);
});
