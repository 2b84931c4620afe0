/**
 * An abort signal that follows a parent signal and can also be aborted on its own: what
 * `AbortSignal.any([parent, own])` gives, without its cost on the hot path (on Node 20, `any` was about a
 * third of the server's CPU per tool call in the benchmark's profile) and with a `dispose` that removes the
 * listener from a long-lived parent.
 *
 * It is a {@link Cancellation} first: its state is its own, and it follows its parent through the
 * parent's `onAbort` only once something listens to it. The `AbortSignal` is created on first use of
 * `signal`: most tool calls finish without anyone reading it (a gateway relays a call's cancellation with
 * `onAbort`), and an `AbortController` plus a listener on the parent are a noticeable part of a call's
 * cost. What can be observed is the same as with an eager signal.
 * @module
 */
import {
  AbortListeners,
  abortError,
  cancellationOf,
  type Cancellation,
} from '../protocol/engine/cancellation.js';

/** A parent cancellation: a request's (whose signal is created on first use), or any other. */
export type SignalSource = Cancellation;

export interface LinkedSignal extends Cancellation {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  /** Stops following the parent (call when the work is done). */
  dispose(): void;
}

class Linked implements LinkedSignal {
  readonly #source: Cancellation;
  /** Set once aborted: by `abort`, or by the parent while followed (or kept at `dispose`). */
  #done: { reason: unknown } | undefined;
  /** Stops following the parent; set while it is followed. */
  #unfollow: (() => void) | undefined;
  #detached = false;
  #controller: AbortController | undefined;
  #listeners: AbortListeners | undefined;

  constructor(source: Cancellation) {
    this.#source = source;
  }

  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    if (this.#done) controller.abort(this.#done.reason);
    else if (this.aborted) this.#fire(this.#source.reason);
    else this.#follow();
    return controller.signal;
  }

  get aborted(): boolean {
    return this.#done !== undefined || (!this.#detached && this.#source.aborted);
  }

  get reason(): unknown {
    if (this.#done) return this.#done.reason;
    return this.#detached ? undefined : this.#source.reason;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    const stop = (this.#listeners ??= new AbortListeners()).add(listener);
    if (!this.aborted) this.#follow();
    return stop;
  }

  abort(reason?: unknown): void {
    if (this.aborted) {
      // A parent that aborted while nothing followed it: its abort is this one's (as it reads already).
      if (!this.#done) this.#fire(this.#source.reason);
      return;
    }
    this.#fire(reason === undefined ? abortError() : reason);
  }

  dispose(): void {
    if (this.#done || this.#detached) return;
    // An already aborted parent is kept; a later abort of the parent is not followed.
    if (this.#source.aborted) this.#fire(this.#source.reason);
    this.#unfollow?.();
    this.#unfollow = undefined;
    this.#detached = true;
  }

  #follow(): void {
    if (this.#unfollow || this.#detached || this.#done) return;
    this.#unfollow = this.#source.onAbort((reason) => this.#fire(reason));
  }

  #fire(reason: unknown): void {
    if (this.#done) return;
    this.#done = { reason };
    this.#unfollow?.();
    this.#unfollow = undefined;
    this.#controller?.abort(reason);
    this.#listeners?.fire(reason);
  }
}

/** Follows `parent`: a signal, or a cancellation (a request's, whose signal is created only if needed). */
export function linkedSignal(parent: AbortSignal | Cancellation): LinkedSignal {
  return new Linked(parent instanceof AbortSignal ? cancellationOf(parent) : parent);
}
