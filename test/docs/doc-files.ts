import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, where the README and the package's tsconfig.json live. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

export interface DocFile {
  /** Relative to the root, with `/`: `README.md`, `docs/policies.md`. */
  path: string;
  text: string;
}

/** A fenced code block: its language, its code (dedented) and the line of the opening fence. */
export interface CodeBlock {
  doc: string;
  lang: string;
  code: string;
  line: number;
}

/** The README, CONTRIBUTING.md and every page under docs/: the documentation a reader follows. */
export function docFiles(): DocFile[] {
  const pages = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', 'CONTRIBUTING.md', ...pages].map((path) => ({
    path,
    text: readFileSync(join(root, path), 'utf8'),
  }));
}

/** Every fenced block of a page, those indented under a list item included. */
export function codeBlocks(doc: DocFile): CodeBlock[] {
  const lines = doc.text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!;
    const end = lines.findIndex((line, j) => j > i && line === `${indent}\`\`\``);
    if (end < 0) throw new Error(`${doc.path}:${i + 1}: a code block that never closes`);
    const code = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n');
    blocks.push({ doc: doc.path, lang: open[2]!, code, line: i + 1 });
    i = end;
  }
  return blocks;
}

/** The page's text outside its code blocks, where its links and headings are. */
export function prose(doc: DocFile): string {
  return doc.text.replace(/^( *)```[\s\S]*?^\1```$/gm, '');
}
