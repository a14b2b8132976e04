import type { StoredOutput } from '../protocol/stored-output.js';
import type { ContentStore } from './content-store.js';

/**
 * A stored output this reader's store lacks, and that was kept in a store with another id: the
 * setting that differs between instances is `contentStore`.
 */
export class ContentStoreMismatch extends Error {
  constructor(
    readonly ref: string,
    /** The id of the store the output was kept in. */
    readonly storedIn: string,
    /** The id of this reader's store. */
    readonly storeId: string,
    options?: ErrorOptions,
  ) {
    super(`output ${ref} was stored in content store ${storedIn}; this store is ${storeId}`, options);
  }

  /**
   * What to tell about it, by `reader` ("worker", "API"); `location` (a directory, a bucket) only
   * where the message stays with the operator.
   */
  explain(reader: string, location?: string): string {
    const ours = location ? `${this.storeId} (${location})` : this.storeId;
    return `output ${this.ref} was stored in content store ${this.storedIn}; this ${reader}'s store is ${ours}: every worker and API of a task queue must share one contentStore (npm start: <data dir>/content)`;
  }
}

/**
 * The text of a stored output. The store is asked first, whatever its id: a store that holds the
 * text (copied to a new place, say) serves it. When it cannot, and the marker names another store
 * than this one, the answer is that mismatch rather than the store's own "not found".
 */
export async function readStoredOutput(store: ContentStore, marker: StoredOutput): Promise<string> {
  try {
    return await store.get(marker.ref);
  } catch (err) {
    const storedIn = marker.store;
    if (storedIn === undefined) throw err;
    // A store whose id cannot be read now (a directory not writable) is not checked.
    const ours = await store.id?.().catch(() => undefined);
    if (ours === undefined || ours === storedIn) throw err;
    throw new ContentStoreMismatch(marker.ref, storedIn, ours, { cause: err });
  }
}
