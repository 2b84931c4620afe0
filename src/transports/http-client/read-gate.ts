/**
 * Whether an HTTP client transport reads its response bodies on, or waits: shut while the client's engine
 * holds requests it read and has not started (their answers would join POSTs the server has not accepted
 * yet), open again when it holds none. A stream waits for it before each read and between the events of a
 * chunk, so what a server sends meanwhile stays in the connection (its writes wait), not in the client.
 * @module
 */

export class ReadGate {
  #shut = false;
  #waiters: Array<() => void> = [];

  /** Whether reading waits now. */
  get shut(): boolean {
    return this.#shut;
  }

  /** Shuts the gate (`true`) or opens it (`false`: every read waiting goes on, in order). */
  hold(shut: boolean): void {
    this.#shut = shut;
    if (shut || this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Resolves at once when the gate is open, else once it opens. */
  opened(): Promise<void> {
    if (!this.#shut) return Promise.resolve();
    return new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}
