import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { docFiles, prose, root, type DocFile } from './doc-files.js';

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

function anchors(doc: DocFile): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of prose(doc).matchAll(/^#{1,6} (.+)$/gm)) {
    const anchor = anchorOf(heading!);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    found.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return found;
}

test('every relative link in the README, CONTRIBUTING.md and docs/ reaches a file, and its heading', () => {
  const docs = docFiles();
  const byPath = new Map(docs.map((doc) => [doc.path, doc]));
  const broken: string[] = [];
  let checked = 0;
  for (const doc of docs) {
    for (const [, target] of prose(doc).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      checked++;
      const [file, anchor] = target!.split('#') as [string, string | undefined];
      const path = file ? relative(root, join(root, dirname(doc.path), file)) : doc.path;
      if (!existsSync(join(root, path))) broken.push(`${doc.path}: (${target}) (no file ${path})`);
      else if (anchor !== undefined) {
        const page = byPath.get(path);
        if (!page) broken.push(`${doc.path}: (${target}) (an anchor into a page the docs do not include)`);
        else if (!anchors(page).has(anchor)) broken.push(`${doc.path}: (${target}) (no heading #${anchor})`);
      }
    }
  }
  assert.ok(checked >= 30, `found only ${checked} relative links`);
  assert.deepEqual(broken, []);
});
