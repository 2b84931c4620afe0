/**
 * SIGTERM and SIGINT for a serving command: the first asks for a graceful stop (finish what runs, within
 * the grace period), the next one for a stop at once. For a command talking to a server
 * ({@link interruptOnSignals}): the first cancels what is in flight, the next one exits at once.
 * @module
 */
import { CliError, ExitCode } from './exit-code.js';

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

/** While a command talks to a server: what the first SIGINT or SIGTERM stops (see {@link interruptOnSignals}). */
export interface Interruption {
  /** Aborts on the first signal; its reason is {@link Interruption.error}'s. */
  readonly signal: AbortSignal;
  /** Rejects on the first signal, with the CliError to exit with (130 for SIGINT, 143 for SIGTERM). */
  readonly interrupted: Promise<never>;
  /** That error, once a signal came. */
  readonly error: CliError | undefined;
  /** Takes the listeners away (the default handlers, which kill the process, are back). */
  dispose(): void;
}

/**
 * Listens for SIGINT and SIGTERM while a command talks to a server: the first aborts `signal` (the
 * requests given it are cancelled: `notifications/cancelled`) and rejects `interrupted`, so that the
 * command closes its connection (and stops a server command) and exits 130 or 143; a second one exits
 * at once with its own code.
 */
export function interruptOnSignals(): Interruption {
  const controller = new AbortController();
  let fail: (error: CliError) => void = () => undefined;
  const interrupted = new Promise<never>((_, reject) => (fail = reject));
  interrupted.catch(() => undefined); // a command may not be waiting for it when the signal comes
  let error: CliError | undefined;
  const listener = (name: NodeJS.Signals): void => {
    const code = name === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Terminated;
    if (error) process.exit(code);
    error = new CliError(code, `interrupted by ${name}: what was in flight was cancelled`, {
      code: 'INTERRUPTED',
      details: { signal: name },
    });
    controller.abort(error);
    fail(error);
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
  return {
    signal: controller.signal,
    interrupted,
    get error() {
      return error;
    },
    dispose: () => {
      process.removeListener('SIGINT', listener);
      process.removeListener('SIGTERM', listener);
    },
  };
}

/** Resolves when `promise` settles or after `ms`, whichever comes first (never rejects). */
export function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([promise.then(noop, noop), timeout]).finally(() => clearTimeout(timer));
}

function noop(): void {}
