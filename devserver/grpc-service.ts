import * as grpc from '@grpc/grpc-js';
import { RpcError } from './errors.js';
import { root, TO_OBJECT, type ReflectedService } from './proto.js';

/** A unary handler: plain request object in, plain response object out (or a thrown RpcError). */
export type UnaryHandler = (
  // Requests are decoded by reflection; each handler hands them to a function typed with the
  // generated request interface, so the handler map itself stays untyped.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  req: any,
  call: grpc.ServerUnaryCall<unknown, unknown>,
) => object | Promise<object>;

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
      requestSerialize: (v: object) => Buffer.from(reqType.encode(reqType.fromObject(v)).finish()),
      requestDeserialize: (b: Buffer) => reqType.toObject(reqType.decode(b), TO_OBJECT),
      responseSerialize: (v: object) => Buffer.from(resType.encode(resType.fromObject(v)).finish()),
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

/** Wraps handlers so that every throw or rejection becomes a gRPC status, never a crash. */
function wrap(name: string, fn: UnaryHandler, log: boolean): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    let result: object | Promise<object>;
    try {
      result = fn(call.request, call);
    } catch (err) {
      callback(toServiceError(err, name, log));
      return;
    }
    Promise.resolve(result).then(
      (res) => callback(null, res),
      (err) => callback(toServiceError(err, name, log)),
    );
  };
}

export function addService(
  server: grpc.Server,
  serviceName: string,
  handlers: Record<string, UnaryHandler>,
  log: boolean,
): void {
  const def = definitionFor(root.lookupService(serviceName));
  const impl: grpc.UntypedServiceImplementation = {};
  for (const [name, fn] of Object.entries(handlers)) {
    if (!def[name]) throw new Error(`devserver: ${serviceName} has no method ${name}`);
    impl[name] = wrap(name, fn, log);
  }
  // Methods without a handler answer UNIMPLEMENTED (grpc-js does this for missing entries).
  server.addService(def, impl);
}
