/** One message for the user, as the reference's `msgprint` records it. */
export interface UserMessage {
  readonly message: string;
  readonly title?: string;
  /** A colour hint for the UI: `blue`, `green`, `orange`, `red`. */
  readonly indicator?: string;
  /** Shown as a passing alert rather than a dialog. */
  readonly alert?: boolean;
}

/**
 * The messages a request's methods and controllers add for the user (`ctx.messages.add(...)`).
 * A successful answer carries them: `_server_messages` on v1, `messages` on v2 (docs/api.md
 * "Messages"). A transaction retried after a serialisation failure starts the list afresh, so an
 * attempt that was undone leaves no message behind.
 */
export class UserMessages {
  #list: UserMessage[] = [];

  /** Adds a message: text, or an object with title, indicator and alert. */
  add(message: string | UserMessage): void {
    const entry = typeof message === 'string' ? { message } : { ...message, message: String(message.message) };
    this.#list.push(entry);
  }

  /** The messages in the order they were added. */
  get all(): readonly UserMessage[] {
    return this.#list;
  }

  /** Forgets every message (a retried transaction's new attempt). */
  reset(): void {
    this.#list = [];
  }
}
