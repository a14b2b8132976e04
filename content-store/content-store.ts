import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where a worker keeps tool outputs too large to travel through Temporal's history again and
 * again (a claim check): the run's history and transcript hold a small reference, and the model
 * call reads the content back. Content-addressed: `put` returns `sha256:<hex>` for the text, so an
 * activity retried after a crash stores the same text once. Every worker of a task queue must
 * reach the same store (a shared directory, or your own implementation over object storage).
 * A reference names the text alone, and one store serves every run: so each run records the
 * references its own worker wrote, and only those are read back for it, by the model or the API.
 *
 * @example
 * ```ts
 * import { createWorker } from 'countersign/worker';
 * import { fileContentStore } from 'countersign';
 *
 * const worker = await createWorker({
 *   connection,
 *   agents: [analyst],
 *   model,
 *   contentStore: fileContentStore('/var/lib/countersign/content'),
 * });
 * ```
 */
export interface ContentStore {
  /** Keeps `text`; resolves to its reference. */
  put(text: string): Promise<string>;
  /** The text kept under `ref`; rejects when the store does not have it. */
  get(ref: string): Promise<string>;
}

/** What `put` returns: the SHA-256 of the text. The API checks a reference it is sent against it. */
export const CONTENT_REF = /^sha256:([0-9a-f]{64})$/;

/**
 * A content store in a directory: one file per text, named by its SHA-256, written aside and renamed
 * so a reader never sees half of one. Texts are kept until you remove them: a run's references
 * stay readable for as long as its history is.
 *
 * @example
 * ```ts
 * import { fileContentStore } from 'countersign';
 *
 * const store = fileContentStore('.countersign/content');
 * const ref = await store.put('a long log...');
 * console.log(ref, (await store.get(ref)).length);
 * ```
 */
export function fileContentStore(dir: string): ContentStore {
  const fileOf = (hex: string) => path.join(dir, hex.slice(0, 2), hex);
  return {
    async put(text) {
      const hex = createHash('sha256').update(text).digest('hex');
      const file = fileOf(hex);
      await mkdir(path.dirname(file), { recursive: true });
      const aside = `${file}.${randomUUID()}.partial`;
      await writeFile(aside, text);
      await rename(aside, file);
      return `sha256:${hex}`;
    },
    async get(ref) {
      const match = CONTENT_REF.exec(ref);
      if (!match) throw new Error(`not a content reference: ${ref.slice(0, 80)}`);
      try {
        return await readFile(fileOf(match[1]!), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT')
          throw new Error(`the content store at ${dir} has no ${ref}: do all workers share it?`);
        throw err;
      }
    },
  };
}
