/**
 * The POSTs of no request (notifications, answers to the server's requests) waiting for one of the slots of
 * an HTTP client transport (`WaitingPosts`) to be free, in the order they were asked for. The line is
 * bounded in count and in bytes of JSON, so a server that never accepts a POST (nor reads them) costs
 * memory in proportion to the bounds, not to what the client has to say.
 * @module
 */

/** The most POSTs of no request waiting in line for a slot. */
export const MAX_NOTICES_QUEUED = 1024;

/** Characters of JSON the POSTs waiting in line for a slot hold at most, together. */
export const MAX_QUEUED_NOTICE_BYTES = 16 * 1024 * 1024;

interface Waiter<T> {
  readonly bytes: number;
  readonly resolve: (slot: T) => void;
  readonly reject: (reason: unknown) => void;
}

/** A line of waiters for slots of type `T`; a slot is handed to the first with {@link next}. */
export class NoticeLine<T> {
  readonly #waiters: Array<Waiter<T> | undefined> = [];
  #head = 0;
  #bytes = 0;

  /** Waiters in line. */
  get size(): number {
    return this.#waiters.length - this.#head;
  }

  /** Characters of JSON the waiters in line hold. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether one more of `bytes` may wait. */
  fits(bytes: number): boolean {
    return this.size < MAX_NOTICES_QUEUED && this.#bytes + bytes <= MAX_QUEUED_NOTICE_BYTES;
  }

  /** Waits in line (the caller checked that it {@link fits}); resolves with the slot handed to it. */
  wait(bytes: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiters.push({ bytes, resolve, reject });
      this.#bytes += bytes;
    });
  }

  /** Hands `slot` to the first in line (there is one: the caller checked {@link size}). */
  next(slot: T): void {
    const waiter = this.#waiters[this.#head];
    if (!waiter) return;
    this.#waiters[this.#head] = undefined;
    this.#head += 1;
    this.#bytes -= waiter.bytes;
    // The array is compacted once half of it is gone: each waiter is moved a constant number of times.
    if (this.#head * 2 >= this.#waiters.length) {
      this.#waiters.splice(0, this.#head);
      this.#head = 0;
    }
    waiter.resolve(slot);
  }

  /** Every waiter in line rejects with `reason`. */
  clear(reason: unknown): void {
    const waiters = this.#waiters.splice(this.#head);
    this.#waiters.length = 0;
    this.#head = 0;
    this.#bytes = 0;
    for (const waiter of waiters) waiter?.reject(reason);
  }
}
