import { createHash, randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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
  /**
   * Names this store: the same for every worker and API that share it, another for any other store.
   * The worker writes it beside each reference, so a reader whose store lacks an output can say it
   * was kept in another store rather than only that it is missing. Optional: a store without one is
   * read as before, with no such check.
   */
  id?(): Promise<string>;
  /** Where the store keeps texts (a directory, an `s3://` URL), for operators' logs; never sent to an API client. */
  readonly location?: string;
}

/** What `put` returns: the SHA-256 of the text. The API checks a reference it is sent against it. */
export const CONTENT_REF = /^sha256:([0-9a-f]{64})$/;

/**
 * A content store in a directory: one file per text, named by its SHA-256, written aside and renamed
 * so a reader never sees half of one. Texts are kept until you remove them: a run's references
 * stay readable for as long as its history is. Its id is made once, into a file `store-id` in the
 * directory: every instance that mounts the same directory reads the same one.
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
export function fileContentStore(dir: string): Required<ContentStore> {
  const fileOf = (hex: string) => path.join(dir, hex.slice(0, 2), hex);
  let id: Promise<string> | undefined;
  return {
    location: path.resolve(dir),
    id() {
      // A failure (a directory not writable yet) is tried again on the next call.
      id ??= storeIdIn(dir).catch((err: unknown) => {
        id = undefined;
        throw err;
      });
      return id;
    },
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

/**
 * The id kept in `<dir>/store-id`, made on first use. Written aside, then hard-linked into place,
 * which fails if the file is there: of instances starting together on a shared directory, one
 * link wins and every other reads the whole id it wrote, never an empty or half-written file.
 */
async function storeIdIn(dir: string): Promise<string> {
  const file = path.join(dir, 'store-id');
  const read = async () => {
    const id = (await readFile(file, 'utf8')).trim();
    if (!id)
      throw new Error(`the content store's id file ${file} is empty: remove it, and one is made again`);
    return id;
  };
  try {
    return await read();
  } catch (err) {
    if (!isCode(err, 'ENOENT')) throw err;
  }
  await mkdir(dir, { recursive: true });
  const id = `${randomUUID()}\n`;
  const aside = `${file}.${randomUUID()}.partial`;
  await writeFile(aside, id, { flag: 'wx' });
  try {
    await link(aside, file);
  } catch (err) {
    if (!isCode(err, 'EEXIST')) {
      // A file system without hard links (some network and FUSE mounts): made in place, exclusively.
      await writeFile(file, id, { flag: 'wx' }).catch((error: unknown) => {
        if (!isCode(error, 'EEXIST')) throw error;
      });
    }
  } finally {
    await rm(aside, { force: true });
  }
  return read();
}

const isCode = (err: unknown, code: string) => (err as NodeJS.ErrnoException).code === code;
