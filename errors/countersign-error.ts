/** A class of error the package brands (abstract or not). */
type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Brands an error class so that `instanceof` recognises its instances from every copy of
 * Countersign loaded in the process (two versions nested in `node_modules`, a bundled and an
 * unbundled one), not only from this copy: each copy has class objects of its own, but
 * `Symbol.for` hands every copy the same symbol, which the brand sets on the class's prototype.
 * The class's `name` is set on the prototype too, so every instance of it is named alike.
 *
 * Called once, from the class's own static block.
 */
export function brandError(type: ErrorClass, name: string): void {
  const brand = Symbol.for(`countersign.error.${name}`);
  // Writable, as Error.prototype.name is: a team's subclass may still assign its own name.
  Object.defineProperty(type.prototype, 'name', { value: name, writable: true, configurable: true });
  Object.defineProperty(type.prototype, brand, { value: true });
  Object.defineProperty(type, Symbol.hasInstance, {
    value(this: ErrorClass, value: unknown): boolean {
      // A subclass the package did not brand (a team's own) inherits this method: for it, the
      // prototype chain decides, as it does for any class.
      if (this !== type) return Function.prototype[Symbol.hasInstance].call(this, value);
      return typeof value === 'object' && value !== null && brand in value;
    },
  });
}

/**
 * The base of every error Countersign throws for a caller to handle. `code` is stable across
 * versions, so code may branch on it and logs may be searched for it; `name` is the class's name,
 * the same for every instance. `instanceof` recognises an error made by another copy of the package
 * in the same process (as the Temporal SDK's errors do), so a check written against the copy a team
 * imports also holds for errors thrown by the copy their worker or API loaded.
 *
 * | class | `code` |
 * | --- | --- |
 * | `OutcomeUnknownError` | `outcome_unknown` |
 * | `UnknownApprovalError` | `unknown_approval` |
 * | `DevServerPortTaken` | `dev_server_port_taken` |
 * | `CliError` | `cli_error` |
 * | `HttpError` | the API error code of its answer (`ApiErrorCode`) |
 *
 * @example
 * ```ts
 * import { CountersignError } from 'countersign';
 * import { sendDecision } from 'countersign/client';
 *
 * try {
 *   await sendDecision(client, signal);
 * } catch (err) {
 *   if (err instanceof CountersignError) console.error(`${err.name} (${err.code}): ${err.message}`);
 *   else throw err;
 * }
 * ```
 */
export abstract class CountersignError<Code extends string = string> extends Error {
  static {
    brandError(this, 'CountersignError');
  }

  constructor(
    readonly code: Code,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
