import { createHash } from 'node:crypto';
// Types only: nothing of the SDK loads until a store is used (see `loadSdk`).
import type { S3Client } from '@aws-sdk/client-s3';
import { CONTENT_REF, type ContentStore } from './content-store.js';

/**
 * Where `s3ContentStore` keeps texts. The client is yours, configured as your other S3 calls are
 * (region, endpoint, credentials, `forcePathStyle`), so the store works with any S3-compatible
 * service.
 *
 * @example
 * ```ts
 * import { S3Client } from '@aws-sdk/client-s3';
 * import type { S3ContentStoreOptions } from 'countersign';
 *
 * const options: S3ContentStoreOptions = {
 *   client: new S3Client({ region: 'eu-west-1' }),
 *   bucket: 'acme-agent-outputs',
 *   prefix: 'countersign/prod/',
 * };
 * ```
 */
export interface S3ContentStoreOptions {
  /** The S3 client every call goes through. */
  client: S3Client;
  /** The bucket, which must exist: the store never creates one. */
  bucket: string;
  /**
   * Put before each object's key, as is (end it with `/` for a folder). Default
   * `countersign/content/`. Workers share texts only when they share bucket and prefix.
   */
  prefix?: string;
}

type Sdk = typeof import('@aws-sdk/client-s3');
let sdk: Promise<Sdk> | undefined;

/** The SDK, imported on first use: a worker that never uses this store need not install it. */
function loadSdk(): Promise<Sdk> {
  sdk ??= import('@aws-sdk/client-s3').catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new Error(
      's3ContentStore needs @aws-sdk/client-s3, an optional peer dependency of countersign: npm install @aws-sdk/client-s3',
      { cause: err },
    );
  });
  return sdk;
}

/**
 * A content store in an S3 bucket (AWS S3, MinIO, Ceph, Cloudflare R2...): one object per text,
 * keyed by its SHA-256, for workers on several machines that cannot share a directory. `put` of
 * the same text writes the same bytes to the same key, so a retried activity is harmless; there
 * is no HEAD first, which would cost every new output a round trip to spare only a retry's upload.
 * Objects are kept until you remove them (a lifecycle rule on the prefix, once their runs' histories
 * are gone). Needs `@aws-sdk/client-s3`, which you install beside countersign. Its id is a digest
 * of bucket and prefix: stores on one bucket and prefix are one store, with nothing written for it.
 *
 * @example
 * ```ts
 * import { S3Client } from '@aws-sdk/client-s3';
 * import { createWorker } from 'countersign/worker';
 * import { s3ContentStore } from 'countersign';
 *
 * const worker = await createWorker({
 *   connection,
 *   agents: [analyst],
 *   model,
 *   contentStore: s3ContentStore({
 *     // MinIO and most self-hosted stores want path-style URLs.
 *     client: new S3Client({ region: 'us-east-1', endpoint: 'http://minio:9000', forcePathStyle: true }),
 *     bucket: 'countersign',
 *   }),
 * });
 * ```
 */
export function s3ContentStore(options: S3ContentStoreOptions): Required<ContentStore> {
  const { client, bucket, prefix = 'countersign/content/' } = options;
  const keyOf = (hex: string) => `${prefix}${hex}`;
  // A digest, not the names: the id goes into runs' transcripts, which API clients read.
  const id = `s3:${createHash('sha256').update(`${bucket}\n${prefix}`).digest('hex').slice(0, 32)}`;
  return {
    location: `s3://${bucket}/${prefix}`,
    id: () => Promise.resolve(id),
    async put(text) {
      const { PutObjectCommand } = await loadSdk();
      const hex = createHash('sha256').update(text).digest('hex');
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: keyOf(hex),
          Body: text,
          ContentType: 'text/plain; charset=utf-8',
        }),
      );
      return `sha256:${hex}`;
    },
    async get(ref) {
      const match = CONTENT_REF.exec(ref);
      if (!match) throw new Error(`not a content reference: ${ref.slice(0, 80)}`);
      const { GetObjectCommand } = await loadSdk();
      const key = keyOf(match[1]!);
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        if (!object.Body) throw new Error(`S3 answered no body for s3://${bucket}/${key}`);
        return await object.Body.transformToString('utf-8');
      } catch (err) {
        if (missing(err))
          throw new Error(
            `the content store in S3 bucket ${bucket} has no ${ref} (key ${key}): do all workers share it, with the same bucket and prefix?`,
          );
        throw err;
      }
    },
  };
}

/**
 * A missing key: NoSuchKey from S3 and most others, a bare 404 from some S3-compatible services.
 * A missing bucket is a 404 too, but a misconfiguration that its own error names better.
 */
function missing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  if (e?.name === 'NoSuchBucket') return false;
  return e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}
