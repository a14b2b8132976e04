import { Metadata, status } from '@grpc/grpc-js';
import { encodeAs } from './proto.js';

/** An error that reaches the caller as a gRPC status, optionally with a Temporal error detail. */
export class RpcError extends Error {
  constructor(
    readonly code: status,
    message: string,
    readonly detail?: { typeName: string; value: object },
  ) {
    super(message);
  }

  metadata(): Metadata {
    const md = new Metadata();
    if (this.detail) {
      const any = {
        type_url: `type.googleapis.com/${this.detail.typeName}`,
        value: encodeAs(this.detail.typeName, this.detail.value),
      };
      const st = encodeAs('google.rpc.Status', { code: this.code, message: this.message, details: [any] });
      md.set('grpc-status-details-bin', Buffer.from(st));
    }
    return md;
  }
}

export const invalid = (msg: string) => new RpcError(status.INVALID_ARGUMENT, msg);
export const notFound = (msg: string) => new RpcError(status.NOT_FOUND, msg);
export const alreadyExists = (msg: string) => new RpcError(status.ALREADY_EXISTS, msg);
export const failedPrecondition = (msg: string) => new RpcError(status.FAILED_PRECONDITION, msg);
