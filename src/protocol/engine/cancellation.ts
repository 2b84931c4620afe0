/**
 * A cancellation that can be followed without an `AbortSignal`. Creating an `AbortController` and adding a
 * listener to its signal is a noticeable part of a relayed call's cost (a gateway passes its caller's
 * cancellation on to every upstream call), and nearly every call ends without being cancelled: a request's
 * context and a tool call's context offer their cancellation in this form too, and a request accepts it
 * (`RequestOptions.cancellation`) beside or instead of a signal.
 * @module
 */

/** Something that can be cancelled once, with a reason; what `AbortSignal` offers, for less. */
export interface Cancellation {
  /** Whether it was cancelled. */
  readonly aborted: boolean;
  /** Why it was cancelled (undefined until then). */
  readonly reason: unknown;
  /**
   * Calls `listener` once, when it is cancelled, with the reason; not when it already is (as an
   * `AbortSignal`'s `abort` listener: read `aborted` first). Returns the function that stops listening.
   */
  onAbort(listener: (reason: unknown) => void): () => void;
}

/** A signal as a {@link Cancellation}. */
export function cancellationOf(signal: AbortSignal): Cancellation {
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason(): unknown {
      return signal.reason as unknown;
    },
    onAbort(listener) {
      return followSignal(signal, listener);
    },
  };
}

/** The listeners following a signal through its one `abort` listener, and how many there are. */
interface Followers {
  readonly listeners: Set<Listener>;
  readonly onAbort: () => void;
}

const followed = new WeakMap<AbortSignal, Followers>();

/**
 * Calls `listener` with the reason when `signal` aborts (not when it already has); returns the function that
 * stops following. However many follow one signal (a caller's signal given to every call it makes), the
 * signal has one listener of ours: Node warns of a leak past ten on one signal, and each costs a little.
 */
export function followSignal(signal: AbortSignal, listener: (reason: unknown) => void): () => void {
  let followers = followed.get(signal);
  if (!followers) {
    const listeners = new Set<Listener>();
    const onAbort = (): void => {
      followed.delete(signal);
      const reason: unknown = signal.reason;
      // Each follower runs, as separate listeners would; the first error is reported after.
      let failure: { error: unknown } | undefined;
      for (const follower of listeners) {
        try {
          follower(reason);
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure) throw failure.error;
    };
    followers = { listeners, onAbort };
    followed.set(signal, followers);
    signal.addEventListener('abort', onAbort, { once: true });
  }
  const { listeners } = followers;
  // The same function twice follows twice (as `addEventListener` would not): a wrapper per follow.
  const own: Listener = (reason) => listener(reason);
  listeners.add(own);
  return () => {
    if (!listeners.delete(own) || listeners.size > 0) return;
    const current = followed.get(signal);
    if (current?.listeners !== listeners) return;
    followed.delete(signal);
    signal.removeEventListener('abort', current.onAbort);
  };
}

/**
 * A signal that follows a cancellation, for the few places that need a real one (it listens until the
 * cancellation fires: use it for one request's cancellation, not a long-lived one).
 */
export function signalOf(cancellation: Cancellation): AbortSignal {
  const controller = new AbortController();
  if (cancellation.aborted) controller.abort(cancellation.reason);
  else cancellation.onAbort((reason) => controller.abort(reason));
  return controller.signal;
}

/** What `AbortController.abort()` gives as its reason when it is given none. */
export function abortError(): DOMException {
  return new DOMException('This operation was aborted', 'AbortError');
}

type Listener = (reason: unknown) => void;

/**
 * The listeners of a cancellation, called in the order they were added. Holds one listener without an
 * array (the common case: the one request a call is relayed to).
 */
export class AbortListeners {
  #one: Listener | undefined;
  #more: Listener[] | undefined;

  add(listener: Listener): () => void {
    if (this.#more) this.#more.push(listener);
    else if (this.#one) {
      this.#more = [this.#one, listener];
      this.#one = undefined;
    } else this.#one = listener;
    return () => this.#remove(listener);
  }

  /** Calls every listener once (they are removed first: a listener that adds another does not run it). */
  fire(reason: unknown): void {
    const one = this.#one;
    const more = this.#more;
    this.#one = undefined;
    this.#more = undefined;
    if (one) one(reason);
    if (more) for (const listener of more) listener(reason);
  }

  #remove(listener: Listener): void {
    if (this.#one === listener) {
      this.#one = undefined;
      return;
    }
    const index = this.#more?.indexOf(listener) ?? -1;
    if (index >= 0) this.#more!.splice(index, 1);
  }
}

/**
 * A cancellation this code fires itself (`abort`), without an `AbortController`: for one per call where
 * nearly every call ends uncancelled.
 */
export class CancellationSource implements Cancellation {
  readonly #listeners = new AbortListeners();
  #aborted = false;
  #reason: unknown;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Cancels once, with `reason`: its listeners are called; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#listeners.fire(reason);
  }
}
