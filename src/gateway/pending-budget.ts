/**
 * What the approvals held by one gateway instance may take: at most `MAX_PENDING_APPROVALS` of them,
 * `MAX_PENDING_APPROVALS_PER_CALLER` of one caller (its principal, else its session), whose arguments (the
 * bytes of their JSON) come to at most `MAX_PENDING_ARGUMENTS_BYTES` in all and
 * `MAX_PENDING_ARGUMENTS_BYTES_PER_CALLER` for one caller, so that no caller can make the gateway hold
 * gigabytes, nor take the whole budget (the count or the bytes) from the others. A call beyond any of them
 * is denied at once, never held.
 * @module
 */

/** At most this many approvals wait in one instance at once; more are denied at once. */
export const MAX_PENDING_APPROVALS = 1_000;
/** At most this many of them are one caller's; more of its calls are denied at once. */
export const MAX_PENDING_APPROVALS_PER_CALLER = 100;
/** The arguments (their JSON's bytes) of the approvals waiting in one instance, at most; more are denied. */
export const MAX_PENDING_ARGUMENTS_BYTES = 64 * 1024 * 1024;
/** The same for one caller's approvals. */
export const MAX_PENDING_ARGUMENTS_BYTES_PER_CALLER = 16 * 1024 * 1024;

export class PendingBudget {
  #count = 0;
  #bytes = 0;
  /** Approvals and bytes held per caller (its `callerKey`). */
  readonly #heldBy = new Map<string, { count: number; bytes: number }>();

  /**
   * Takes a place for an approval whose arguments take `bytes`, for `caller`: its release (to call once it
   * no longer waits; calling it again does nothing), or why there is no place (a denial's reason).
   */
  take(caller: string, bytes: number): (() => void) | string {
    if (this.#count >= MAX_PENDING_APPROVALS)
      return `${MAX_PENDING_APPROVALS} approvals are pending already; try again later`;
    if (this.#bytes + bytes > MAX_PENDING_ARGUMENTS_BYTES) {
      return `the calls waiting for approval would hold more than ${mebibytes(MAX_PENDING_ARGUMENTS_BYTES)} of arguments with this one (${bytes} bytes); try again later`;
    }
    const held = this.#heldBy.get(caller) ?? { count: 0, bytes: 0 };
    if (held.count >= MAX_PENDING_APPROVALS_PER_CALLER)
      return `this caller has ${MAX_PENDING_APPROVALS_PER_CALLER} calls waiting for approval already; try again later`;
    if (held.bytes + bytes > MAX_PENDING_ARGUMENTS_BYTES_PER_CALLER) {
      return `this caller's calls waiting for approval would hold more than ${mebibytes(MAX_PENDING_ARGUMENTS_BYTES_PER_CALLER)} of arguments with this one (${bytes} bytes); try again later`;
    }
    this.#count++;
    this.#bytes += bytes;
    held.count++;
    held.bytes += bytes;
    this.#heldBy.set(caller, held);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#count--;
      this.#bytes -= bytes;
      held.count--;
      held.bytes -= bytes;
      if (held.count === 0) this.#heldBy.delete(caller);
    };
  }
}

function mebibytes(bytes: number): string {
  return `${bytes / (1024 * 1024)} MiB`;
}
