/**
 * Whether a value is a thenable, as `await` decides it: an object or function with a callable `then`.
 * For the paths that take a synchronous value as it comes and only wait on a promise (the engine's
 * request handling, a tool call, a Standard Schema validator).
 * @module
 */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/** A value now, or a promise of it: what a step that may answer synchronously gives. */
export type MaybePromise<T> = T | Promise<T>;
