/**
 * Ordered, backpressure-aware writing of lines to a Node writable stream.
 *
 * The stdio transports use Node's `process` and `Buffer` globals rather than importing `node:process` and
 * `node:buffer`: an ESM import of a builtin builds a facade of its exports (`node:process`'s took ≈2 ms
 * of a stdio server's cold start).
 * @module
 */
import type { Writable } from 'node:stream';
import { LocalErrorCode, errorMessage } from '../../protocol/errors.js';
import { TransportError } from '../transport-error.js';

/**
 * Writes lines one after another. When `write()` returns false it waits for `'drain'` before
 * writing the next line, so a slow reader bounds memory and the order of lines is kept.
 * Each `write` resolves once its line was accepted by the stream (not necessarily flushed).
 *
 * Lines written in the same tick (for example the answers to a chunk of pipelined requests, which
 * settle in one run of microtasks) go to the stream as one string, in order, on the next tick: one
 * `write` (one system call on a pipe) instead of one per line; a batch is written at once when it
 * reaches the stream's high-water mark. `close` writes what is pending first,
 * so nothing written before it is lost.
 */
export class LineWriter {
  /** Lines of this tick, not yet given to the stream, and the promise their writes share. */
  private batch: Batch | undefined;
  /** Settles after the last queued line; new lines wait for it while `busy > 0`. */
  private tail: Promise<void> = RESOLVED;
  /** Lines queued behind a wait for `'drain'`, plus that wait itself. */
  private busy = 0;
  private closedError: Error | undefined;
  private abortWait: ((error: Error) => void) | undefined;
  private readonly batchLimit: number;

  /**
   * @param stream Where lines go.
   * @param onLateError Called with a write error that arrives after its `write` already resolved.
   */
  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly onLateError: (error: TransportError) => void = () => {},
  ) {
    this.batchLimit = (stream as Partial<Writable>).writableHighWaterMark ?? 16_384;
  }

  /** Queues one line; resolves when the stream accepted it, rejects with a `TransportError`. */
  write(line: string): Promise<void> {
    if (this.closedError) return Promise.reject(this.closedError);
    const batch = this.batch;
    if (batch) {
      batch.text += line;
      // A batch never grows past the stream's high-water mark: a slow reader still bounds memory.
      if (batch.text.length >= this.batchLimit) this.flush();
      return batch.done;
    }
    const next = new Batch(line);
    this.batch = next;
    process.nextTick(this.flush);
    return next.done;
  }

  /** Rejects the line waiting for `'drain'` and every later one with `error`. */
  close(error: Error): void {
    this.flush();
    this.closedError ??= error;
    this.abortWait?.(this.closedError);
  }

  private readonly flush = (): void => {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    const written = this.enqueue(batch.text);
    if (written === RESOLVED) batch.resolve();
    else written.then(batch.resolve, batch.reject);
  };

  private enqueue(line: string): Promise<void> {
    // The common case: nothing waits for 'drain', so the line is written now, with no promise
    // chain and no listeners (a shared resolved promise when the stream accepts it).
    if (this.busy === 0) return this.writeNow(line, true);
    this.busy += 1;
    const result = this.tail.then(() => {
      this.busy -= 1;
      return this.writeNow(line, false);
    });
    this.tail = result.then(noop, noop);
    return result;
  }

  private writeNow(line: string, direct: boolean): Promise<void> {
    if (this.closedError) return Promise.reject(this.closedError);
    const { stream } = this;
    // Where the line is when its write callback reports an error: still inside `write()`, accepted
    // (its promise resolved: a late error), or waiting for 'drain' (`fail` rejects it).
    let state: 'writing' | 'accepted' | 'waiting' = 'writing';
    let fail: ((error: Error) => void) | undefined;
    let failedEarly: TransportError | undefined;
    let accepted: boolean;
    try {
      accepted = stream.write(line, (error) => {
        if (!error) return;
        if (state === 'writing') failedEarly ??= sendFailed(error);
        else if (state === 'waiting' && fail) fail(sendFailed(error));
        else this.onLateError(sendFailed(error));
      });
    } catch (error) {
      return Promise.reject(sendFailed(error));
    }
    if (failedEarly) return Promise.reject(failedEarly);
    if (accepted) {
      state = 'accepted';
      return RESOLVED;
    }

    state = 'waiting';
    this.busy += 1;
    const wait = new Promise<void>((resolve, reject) => {
      let settled = false;
      const cleanup = (): void => {
        settled = true;
        this.busy -= 1;
        this.abortWait = undefined;
        stream.removeListener('drain', onDrain);
        stream.removeListener('close', onClose);
        stream.removeListener('error', onError);
      };
      fail = (error: Error): void => {
        if (settled) {
          this.onLateError(error instanceof TransportError ? error : sendFailed(error));
          return;
        }
        cleanup();
        reject(error);
      };
      const onDrain = (): void => {
        if (settled) return;
        cleanup();
        resolve();
      };
      const onClose = (): void => fail?.(closedError());
      const onError = (error: Error): void => fail?.(sendFailed(error));
      this.abortWait = fail;
      stream.once('drain', onDrain);
      stream.once('close', onClose);
      stream.once('error', onError);
    });
    if (direct) this.tail = wait.then(noop, noop);
    return wait;
  }
}

const RESOLVED: Promise<void> = Promise.resolve();

/** Text gathered in one tick and the promise of its write. */
class Batch {
  readonly done: Promise<void>;
  resolve!: () => void;
  reject!: (error: unknown) => void;

  constructor(public text: string) {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}

function noop(): void {}

function sendFailed(cause: unknown): TransportError {
  return new TransportError(LocalErrorCode.SendFailed, `Could not write message: ${errorMessage(cause)}`, {
    cause,
  });
}

function closedError(): TransportError {
  return new TransportError(LocalErrorCode.ConnectionClosed, 'The output stream closed');
}
