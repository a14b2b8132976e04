import * as grpc from '@grpc/grpc-js';
import { RpcError } from './errors.js';
import { encodePlain, root, TO_OBJECT, type ReflectedService } from './proto.js';

/** A unary handler: plain request object in, plain response object out (or a thrown RpcError). */
export type UnaryHandler = (
  // Requests are decoded by reflection; each handler hands them to a function typed with the
  // generated request interface, so the handler map itself stays untyped.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  req: any,
  call: grpc.ServerUnaryCall<unknown, unknown>,
) => object | Promise<object>;

const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** Builds a grpc-js service definition from the SDK's protobuf reflection. */
function definitionFor(service: ReflectedService): grpc.ServiceDefinition {
  const def: Record<string, grpc.MethodDefinition<object, object>> = {};
  const path = service.fullName.replace(/^\./, '');
  for (const m of Object.values(service.resolveAll().methods)) {
    const reqType = m.resolvedRequestType;
    const resType = m.resolvedResponseType;
    def[m.name] = {
      path: `/${path}/${m.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (v: object) => asBuffer(reqType.encode(reqType.fromObject(v)).finish()),
      requestDeserialize: (b: Buffer) => reqType.toObject(reqType.decode(b), TO_OBJECT),
      responseSerialize: (v: object) => asBuffer(encodePlain(resType, v)),
      responseDeserialize: (b: Buffer) => resType.toObject(resType.decode(b), TO_OBJECT),
    };
  }
  return def;
}

function toServiceError(err: unknown, method: string, log: boolean): Partial<grpc.StatusObject> {
  if (err instanceof RpcError) return { code: err.code, details: err.message, metadata: err.metadata() };
  if (log) console.error(`devserver: ${method} failed`, err);
  return { code: grpc.status.INTERNAL, details: `${method}: ${(err as Error)?.message ?? String(err)}` };
}

/** Calls back once every change made so far is committed (see Engine.whenDurable). */
export type WhenDurable = (cb: (err?: Error) => void) => void;

/**
 * Wraps handlers so that every throw or rejection becomes a gRPC status, never a crash, and
 * no answer leaves before the changes it reports (or any other change made before it) are
 * committed.
 */
function wrap(
  name: string,
  fn: UnaryHandler,
  log: boolean,
  whenDurable: WhenDurable,
): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const answer = (err: unknown, res?: object) =>
      whenDurable((commitError) => {
        if (commitError) callback(toServiceError(commitError, name, log));
        else if (err !== undefined) callback(toServiceError(err, name, log));
        else callback(null, res);
      });
    let result: object | Promise<object>;
    try {
      result = fn(call.request, call);
    } catch (err) {
      answer(err);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (res) => answer(undefined, res),
        (err: unknown) => answer(err ?? new Error('rejected')),
      );
    } else {
      answer(undefined, result);
    }
  };
}

export function addService(
  server: grpc.Server,
  serviceName: string,
  handlers: Record<string, UnaryHandler>,
  log: boolean,
  whenDurable: WhenDurable,
): void {
  const def = definitionFor(root.lookupService(serviceName));
  const impl: grpc.UntypedServiceImplementation = {};
  for (const [name, fn] of Object.entries(handlers)) {
    if (!def[name]) throw new Error(`devserver: ${serviceName} has no method ${name}`);
    impl[name] = wrap(name, fn, log, whenDurable);
  }
  // Methods without a handler answer UNIMPLEMENTED (grpc-js does this for missing entries).
  server.addService(def, impl);
}
