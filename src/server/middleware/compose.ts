/**
 * Composes middleware into one function, Hono-style: each middleware gets `next`, which runs the rest
 * of the chain and then the handler; a middleware that does not call `next` ends the call there.
 * @module
 */
import { asError } from '../../protocol/errors.js';
import type { MaybePromise } from '../../protocol/promise-like.js';

/** A middleware over calls of type `C` producing `R`. */
export type Middleware<C, R> = (call: C, next: () => Promise<R>) => Promise<R>;

/**
 * A built-in middleware: `next` gives the rest of the chain's result as it comes — the value itself when
 * nothing in the rest waits (a synchronous handler) — and so may it.
 */
export type InlineMiddleware<C, R> = (call: C, next: () => MaybePromise<R>) => MaybePromise<R>;

/**
 * Runs `middleware` in order around `handler`. Calling `next` twice from one middleware rejects (the
 * handler must run at most once); a middleware that throws synchronously rejects its promise.
 */
export function compose<C, R>(
  middleware: ReadonlyArray<Middleware<C, R>>,
  handler: (call: C) => Promise<R>,
): (call: C) => Promise<R> {
  return (call) => Promise.resolve(runChain(NO_INLINE, middleware, call, () => handler(call)));
}

/** No inline middleware (a chain of `added` only). */
export const NO_INLINE: readonly never[] = [];

/**
 * The one dispatch of every chain: runs `inline` middleware in order, then `added` (each gets a promise
 * from `next` and its result is taken as a promise), then `handler`. While every step answers at once the
 * result is the value itself: a call whose handler answers synchronously costs no promise, reaction or
 * microtask here (each is ≈ 300–600 instructions, and a call passes several layers). A synchronous throw,
 * and `next` called twice, reject.
 */
export function runChain<C, R>(
  inline: ReadonlyArray<InlineMiddleware<C, R>>,
  added: ReadonlyArray<Middleware<C, R>>,
  call: C,
  handler: () => MaybePromise<R>,
): MaybePromise<R> {
  const inlined = inline.length;
  let last = -1;
  const dispatch = (i: number): MaybePromise<R> => {
    if (i <= last) return Promise.reject(new Error('next() was called more than once by one middleware'));
    last = i;
    try {
      const own = inline[i];
      if (own) return own(call, () => dispatch(i + 1));
      const fn = added[i - inlined];
      if (fn) return Promise.resolve(fn(call, () => Promise.resolve(dispatch(i + 1))));
      return added.length === 0 ? handler() : Promise.resolve(handler());
    } catch (error) {
      return Promise.reject(asError(error));
    }
  };
  return dispatch(0);
}
