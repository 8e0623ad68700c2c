/** One message shown to the user, as the reference's `msgprint` entries in `_server_messages`. */
export interface ServerMessage {
  readonly message: string;
  readonly title?: string;
  readonly indicator?: string;
}

export interface FwErrorOptions {
  readonly messages?: readonly ServerMessage[];
  readonly doctype?: string;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

/**
 * Base of every error a client may see. Subclasses fix the `exc_type` name and the HTTP status;
 * nothing else maps errors to statuses (see http/error-response.ts).
 */
export class FwError extends Error {
  /** The class name clients see as `exc_type`; survives minification and subclass renames. */
  static readonly excType: string = 'Exception';
  static readonly status: number = 500;
  /** Messages for `_server_messages`; defaults to the error message itself. */
  readonly messages: readonly ServerMessage[];
  /** The DocType the error is about, for the DoesNotExist-to-403 rule. */
  readonly doctype: string | undefined;
  /** Machine-readable facts for the layers above (e.g. which column a unique violation hit). */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(message = '', options: FwErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.messages = options.messages ?? (message ? [{ message }] : []);
    this.doctype = options.doctype;
    this.details = options.details ?? {};
  }

  get excType(): string {
    return (this.constructor as typeof FwError).excType;
  }

  get status(): number {
    return (this.constructor as typeof FwError).status;
  }
}

export function isFwError(err: unknown): err is FwError {
  return err instanceof FwError;
}
