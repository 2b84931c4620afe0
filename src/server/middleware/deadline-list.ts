/**
 * Deadlines of one length, for many calls at once: entries are appended in start order, so their
 * deadlines only grow, and one timer, for the earliest, serves them all. Adding and removing an entry
 * is a few pointer moves (a doubly linked list), where a timer per call costs Node a timer object, a
 * list insertion and a removal each time — and nearly every call ends long before its deadline.
 * @module
 */

/** One watched call: `expire` runs when its deadline passes while it is still in the list. */
export abstract class DeadlineEntry {
  deadline = 0;
  /** @internal */ prev: DeadlineEntry | undefined;
  /** @internal */ next: DeadlineEntry | undefined;
  /** @internal */ list: DeadlineList | undefined;

  abstract expire(now: number): void;

  /** Takes the entry out of its list (it will not expire); a no-op when it is in none. */
  cancel(): void {
    this.list?.remove(this);
  }
}

export class DeadlineList {
  readonly ms: number;
  readonly #now: () => number;
  #head: DeadlineEntry | undefined;
  #tail: DeadlineEntry | undefined;
  /**
   * Armed while any entry may be due; not cleared when the list empties (a call ending would otherwise
   * clear it and the next one set it again, a timer per call after all): it fires, finds nothing due
   * and re-arms for the head, if any. Unreferenced, so it keeps no process alive by itself.
   */
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(ms: number, now: () => number = () => performance.now()) {
    this.ms = ms;
    this.#now = now;
  }

  /** Watches `entry` from `start` (default now): it expires `ms` later unless cancelled first. */
  add(entry: DeadlineEntry, start: number = this.#now()): void {
    entry.cancel();
    entry.deadline = start + this.ms;
    entry.list = this;
    entry.prev = this.#tail;
    entry.next = undefined;
    if (this.#tail) this.#tail.next = entry;
    else this.#head = entry;
    this.#tail = entry;
    if (this.#timer === undefined) this.#arm(entry.deadline, start);
  }

  /** @internal Use `entry.cancel()`. */
  remove(entry: DeadlineEntry): void {
    if (entry.list !== this) return;
    if (entry.prev) entry.prev.next = entry.next;
    else this.#head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.#tail = entry.prev;
    entry.prev = entry.next = entry.list = undefined;
  }

  /** How many entries are watched. */
  get size(): number {
    let count = 0;
    for (let entry = this.#head; entry; entry = entry.next) count++;
    return count;
  }

  #arm(deadline: number, now: number): void {
    const timer = setTimeout(this.#fire, Math.max(0, deadline - now));
    (timer as { unref?: () => void }).unref?.();
    this.#timer = timer;
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    const now = this.#now();
    // Timers may fire a little early (rounding): expire what is due, then wait for the rest.
    while (this.#head && this.#head.deadline <= now + 1) {
      const entry = this.#head;
      this.remove(entry);
      entry.expire(now);
    }
    if (this.#head && this.#timer === undefined) this.#arm(this.#head.deadline, now);
  };
}
