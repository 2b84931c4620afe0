/**
 * Runs links around an end function, tRPC-chain style: each link gets the call and `next`, which runs
 * the next link (or the end) with the call it is given, or the same call when given none.
 * @module
 */
import { asError } from '../../protocol/errors.js';

/** A link over calls of type `C` producing `R`. */
export type Link<C, R> = (call: C, next: (call?: C) => Promise<R>) => Promise<R>;

/**
 * Runs `links` in order around `end` for one call. Calling `next` twice from one link rejects (the end
 * runs at most once per link); a link that throws synchronously rejects its promise.
 */
export function runLinks<C, R>(
  links: ReadonlyArray<Link<C, R>>,
  end: (call: C) => Promise<R>,
  call: C,
): Promise<R> {
  let last = -1;
  const dispatch = (i: number, current: C): Promise<R> => {
    if (i <= last) return Promise.reject(new Error('next() was called more than once by one client link'));
    last = i;
    const link = links[i];
    try {
      return Promise.resolve(link ? link(current, (next) => dispatch(i + 1, next ?? current)) : end(current));
    } catch (error) {
      return Promise.reject(asError(error));
    }
  };
  return dispatch(0, call);
}
