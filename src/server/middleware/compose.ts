/**
 * Composes middleware into one function, Hono-style: each middleware gets `next`, which runs the rest
 * of the chain and then the handler; a middleware that does not call `next` ends the call there.
 * @module
 */
import { asError } from '../../protocol/errors.js';

/** A middleware over calls of type `C` producing `R`. */
export type Middleware<C, R> = (call: C, next: () => Promise<R>) => Promise<R>;

/**
 * Runs `middleware` in order around `handler`. Calling `next` twice from one middleware rejects (the
 * handler must run at most once); a middleware that throws synchronously rejects its promise.
 */
export function compose<C, R>(
  middleware: ReadonlyArray<Middleware<C, R>>,
  handler: (call: C) => Promise<R>,
): (call: C) => Promise<R> {
  return (call) => {
    let last = -1;
    const dispatch = (i: number): Promise<R> => {
      if (i <= last) return Promise.reject(new Error('next() was called more than once by one middleware'));
      last = i;
      const fn = middleware[i];
      try {
        return Promise.resolve(fn ? fn(call, () => dispatch(i + 1)) : handler(call));
      } catch (error) {
        return Promise.reject(asError(error));
      }
    };
    return dispatch(0);
  };
}
