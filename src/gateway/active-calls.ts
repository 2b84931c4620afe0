/**
 * The calls in flight on one upstream, by their callers' contexts: where an upstream's log message goes
 * when it has exactly one (see `CallRelay.log`).
 * @module
 */
import type { ToolContext } from '../server/index.js';

/** A call in flight, linked to its neighbours; what `add` returns and `remove` takes. */
export interface ActiveCall {
  readonly ctx: ToolContext;
  prev: ActiveCall | undefined;
  next: ActiveCall | undefined;
  removed: boolean;
}

/**
 * A linked list, not a `Set`: every relayed call adds its context and removes it, and a `Set` whose
 * entries come and go with every call rehashes every few calls (a third of the calls at 16 in flight,
 * ≈1,000 instructions per call with the adds and deletes, counted by bench/gateway-instructions.mjs). A
 * list is kept per upstream while the upstream is.
 */
export class ActiveCalls {
  #head: ActiveCall | undefined;
  #tail: ActiveCall | undefined;
  #size = 0;

  /** How many calls are in flight. */
  get size(): number {
    return this.#size;
  }

  /** Counts a call in flight until it is removed. */
  add(ctx: ToolContext): ActiveCall {
    const call: ActiveCall = { ctx, prev: this.#tail, next: undefined, removed: false };
    if (this.#tail) this.#tail.next = call;
    else this.#head = call;
    this.#tail = call;
    this.#size += 1;
    return call;
  }

  /** Ends a call (again: nothing). */
  remove(call: ActiveCall): void {
    if (call.removed) return;
    call.removed = true;
    if (call.prev) call.prev.next = call.next;
    else this.#head = call.next;
    if (call.next) call.next.prev = call.prev;
    else this.#tail = call.prev;
    call.prev = call.next = undefined;
    this.#size -= 1;
  }

  /** The context of the only call in flight; undefined when there are none or several. */
  only(): ToolContext | undefined {
    return this.#size === 1 ? this.#head?.ctx : undefined;
  }
}
