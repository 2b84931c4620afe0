/**
 * The POSTs of no request (notifications, answers to the server's requests) waiting for one of the slots of
 * an HTTP client transport (`WaitingPosts`) to be free, in the order they were asked for. The line is
 * bounded in count and in bytes of JSON, so a server that never accepts a POST (nor reads them) costs
 * memory in proportion to the bounds, not to what the client has to say. Each waits until its own deadline
 * at most (the time a POST of no request is given, from when it was asked for, not from when it got a
 * slot): one at the back of a full line does not wait for every slot before it to time out in turn.
 * @module
 */

/** The most POSTs of no request waiting in line for a slot. */
export const MAX_NOTICES_QUEUED = 1024;

/** Characters of JSON the POSTs waiting in line for a slot hold at most, together. */
export const MAX_QUEUED_NOTICE_BYTES = 16 * 1024 * 1024;

interface Waiter<T> {
  readonly bytes: number;
  /** When it gives up (`performance.now()` time). */
  readonly deadline: number;
  readonly resolve: (slot: T) => void;
  readonly reject: (reason: unknown) => void;
}

/** A line of waiters for slots of type `T`; a slot is handed to the first with {@link next}. */
export class NoticeLine<T> {
  readonly #waiters: Array<Waiter<T> | undefined> = [];
  #head = 0;
  #bytes = 0;
  /** Fires at the first waiter's deadline (the others' come later: they are in the order they came). */
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #expired: () => unknown;

  /** `expired`: the reason a waiter rejects with when its deadline passes before a slot came. */
  constructor(expired: () => unknown) {
    this.#expired = expired;
  }

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

  /**
   * Waits in line (the caller checked that it {@link fits}) until `deadline` (`performance.now()` time) at
   * most; resolves with the slot handed to it, rejects with the `expired` reason when none came in time.
   */
  wait(bytes: number, deadline: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiters.push({ bytes, deadline, resolve, reject });
      this.#bytes += bytes;
      if (this.size === 1) this.#arm();
    });
  }

  /**
   * Hands a slot to the first in line whose deadline has not passed (those whose has are rejected):
   * `open(deadline)` makes it, for that waiter's deadline. Returns whether one took it.
   */
  next(open: (deadline: number) => T): boolean {
    this.#expire(performance.now());
    const waiter = this.#shift();
    if (!waiter) return false;
    this.#arm();
    waiter.resolve(open(waiter.deadline));
    return true;
  }

  #shift(): Waiter<T> | undefined {
    const waiter = this.#waiters[this.#head];
    if (!waiter) return undefined;
    this.#waiters[this.#head] = undefined;
    this.#head += 1;
    this.#bytes -= waiter.bytes;
    // The array is compacted once half of it is gone: each waiter is moved a constant number of times.
    if (this.#head * 2 >= this.#waiters.length) {
      this.#waiters.splice(0, this.#head);
      this.#head = 0;
    }
    return waiter;
  }

  /** Rejects the waiters at the head whose deadline is past `now`. */
  #expire(now: number): void {
    for (let first = this.#waiters[this.#head]; first && first.deadline <= now;) {
      this.#shift();
      first.reject(this.#expired());
      first = this.#waiters[this.#head];
    }
  }

  /** The timer for the first waiter's deadline, or none when the line is empty. */
  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const first = this.#waiters[this.#head];
    if (!first) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#expire(performance.now());
        this.#arm();
      },
      Math.max(0, first.deadline - performance.now()),
    );
    this.#timer.unref?.();
  }

  /** Every waiter in line rejects with `reason`. */
  clear(reason: unknown): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const waiters = this.#waiters.splice(this.#head);
    this.#waiters.length = 0;
    this.#head = 0;
    this.#bytes = 0;
    for (const waiter of waiters) waiter?.reject(reason);
  }
}
