import { createRequire } from 'node:module';
import { gunzipSync, inflateSync } from 'node:zlib';
import { status } from '@grpc/grpc-js';

/**
 * The SDK's core (tonic) gzips every request it sends. grpc-js 1.14 inflates each one through
 * a fresh zlib stream on the libuv thread pool: about 150 µs of CPU and two thread hops per
 * message, against about 15 µs for an in-place `gunzipSync` of the few hundred bytes a
 * Temporal request carries. Profiling the devserver under the benchmark put this stream
 * machinery at a fifth of its CPU, so this swaps grpc-js's (internal, pinned-version)
 * `decompressMessage` for the synchronous one, keeping its size limit and error statuses.
 * If grpc-js ever moves the method, the patch is skipped and grpc-js's own path is used.
 */
interface InterceptingCall {
  maxReceiveMessageSize: number;
  decompressMessage(message: Buffer, encoding: string): Buffer | Promise<Buffer>;
}

let installed = false;

export function installSyncGzip(): void {
  if (installed) return;
  installed = true;
  const require = createRequire(import.meta.url);
  let proto: InterceptingCall | undefined;
  try {
    const mod = require('@grpc/grpc-js/build/src/server-interceptors.js') as {
      BaseServerInterceptingCall?: { prototype: InterceptingCall };
    };
    proto = mod.BaseServerInterceptingCall?.prototype;
  } catch {
    return;
  }
  if (!proto || typeof proto.decompressMessage !== 'function') return;
  const original = proto.decompressMessage;
  proto.decompressMessage = function (this: InterceptingCall, message: Buffer, encoding: string) {
    if (encoding !== 'gzip' && encoding !== 'deflate') return original.call(this, message, encoding);
    const contents = message.subarray(5);
    const limit = this.maxReceiveMessageSize;
    const opts = limit !== -1 ? { maxOutputLength: limit } : {};
    try {
      return Promise.resolve(encoding === 'gzip' ? gunzipSync(contents, opts) : inflateSync(contents, opts));
    } catch (err) {
      const tooBig = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
      return Promise.reject({
        code: tooBig ? status.RESOURCE_EXHAUSTED : status.INTERNAL,
        details: tooBig
          ? `Received message that decompresses to a size larger than ${limit}`
          : `Received message that could not be decompressed: ${(err as Error).message}`,
      });
    }
  };
}
