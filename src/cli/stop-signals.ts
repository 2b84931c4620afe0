/**
 * SIGTERM and SIGINT for a serving command: the first asks for a graceful stop (finish what runs, within
 * the grace period), the next one for a stop at once.
 * @module
 */

/**
 * Calls `stop(true)` on the first SIGTERM or SIGINT and `stop(false)` on any later one. Returns the
 * function that removes the listeners (the default handlers, which kill the process, are back then).
 */
export function onStopSignals(stop: (graceful: boolean) => void): () => void {
  let signalled = false;
  const listener = (): void => {
    const graceful = !signalled;
    signalled = true;
    stop(graceful);
  };
  process.on('SIGTERM', listener);
  process.on('SIGINT', listener);
  return () => {
    process.removeListener('SIGTERM', listener);
    process.removeListener('SIGINT', listener);
  };
}

/** Resolves when `promise` settles or after `ms`, whichever comes first (never rejects). */
export function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([promise.then(noop, noop), timeout]).finally(() => clearTimeout(timer));
}

function noop(): void {}
