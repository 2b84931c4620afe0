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

/** How much a {@link LineWriter} may hold before it reports that its reader is behind. */
export interface QueueLimits {
  /** Characters of text written but not yet handed to the operating system. */
  maxBytes: number;
  /** Lines written but not yet handed to the operating system. */
  maxMessages: number;
  /**
   * Called with true when the queue reaches either limit, and with false once it is back to half of
   * both (the hysteresis keeps a reader at the edge from flapping the writer's source).
   */
  onPressure: (full: boolean) => void;
}

/**
 * Writes lines one after another. When `write()` returns false it waits for `'drain'` before
 * writing the next line, so the order of lines is kept and the stream's own buffer stays small.
 * Each `write` resolves once its line was accepted by the stream (not necessarily flushed).
 *
 * Lines written in the same tick (for example the answers to a chunk of pipelined requests, which
 * settle in one run of microtasks) go to the stream as one string, in order, on the next tick: one
 * `write` (one system call on a pipe) instead of one per line; a batch is written at once when it
 * reaches the stream's high-water mark. `close` writes what is pending first,
 * so nothing written before it is lost.
 *
 * What waits for a slow reader is counted (lines, and characters: bytes for ASCII text) until the stream
 * hands it to the operating system; with {@link QueueLimits} the writer says when that reaches a limit,
 * and its user stops producing (the stdio server stops reading requests).
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
  /** Refuses new lines (set by `end` and `close`); lines already queued still go out after `end`. */
  private refusal: Error | undefined;
  /** Lines, and their characters, written and not yet handed to the operating system. */
  private queuedLines = 0;
  private queuedChars = 0;
  private full = false;
  private flushWaiters: Array<() => void> | undefined;

  /**
   * @param stream Where lines go.
   * @param onLateError Called with a write error that arrives after its `write` already resolved.
   * @param limits When to report that the reader is behind (default: never).
   */
  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly onLateError: (error: TransportError) => void = () => {},
    private readonly limits?: QueueLimits,
  ) {
    this.batchLimit = (stream as Partial<Writable>).writableHighWaterMark ?? 16_384;
  }

  /** Lines written and not yet handed to the operating system. */
  get queuedMessages(): number {
    return this.queuedLines;
  }

  /** Characters of the lines written and not yet handed to the operating system. */
  get queuedBytes(): number {
    return this.queuedChars;
  }

  /** The queue reached a limit and is not back to half of both yet. */
  get isFull(): boolean {
    return this.full;
  }

  /** Queues one line; resolves when the stream accepted it, rejects with a `TransportError`. */
  write(line: string): Promise<void> {
    if (this.refusal) return Promise.reject(this.refusal);
    this.queuedLines += 1;
    this.queuedChars += line.length;
    const batch = this.batch;
    if (batch) {
      batch.text += line;
      batch.lines += 1;
      // A batch never grows past the stream's high-water mark: a slow reader still bounds memory.
      if (batch.text.length >= this.batchLimit) this.flush();
      return batch.done;
    }
    const next = new Batch(line);
    this.batch = next;
    process.nextTick(this.flush);
    return next.done;
  }

  /** Takes no more lines; those already written still go out, in order. */
  end(error: Error): void {
    this.flush();
    this.refusal ??= error;
  }

  /** Rejects the line waiting for `'drain'` and every later one with `error`. */
  close(error: Error): void {
    this.flush();
    this.refusal ??= error;
    this.closedError ??= error;
    this.abortWait?.(this.closedError);
  }

  /**
   * Resolves once every line written so far was handed to the operating system (or dropped because the
   * stream failed or the writer was closed).
   */
  flushed(): Promise<void> {
    if (this.queuedLines === 0) return RESOLVED;
    return new Promise((resolve) => (this.flushWaiters ??= []).push(resolve));
  }

  private readonly flush = (): void => {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    const written = this.enqueue(batch.text, batch.lines);
    if (written === RESOLVED) batch.resolve();
    else written.then(batch.resolve, batch.reject);
    if (this.limits && !this.full) this.checkFull(this.limits);
  };

  private checkFull(limits: QueueLimits): void {
    if (this.queuedChars < limits.maxBytes && this.queuedLines < limits.maxMessages) return;
    this.full = true;
    limits.onPressure(true);
  }

  /** `lines` lines of `chars` characters left the queue (handed to the OS, or dropped). */
  private dequeued(chars: number, lines: number): void {
    this.queuedChars -= chars;
    this.queuedLines -= lines;
    const limits = this.limits;
    if (
      this.full &&
      limits &&
      this.queuedChars <= limits.maxBytes / 2 &&
      this.queuedLines <= limits.maxMessages / 2
    ) {
      this.full = false;
      limits.onPressure(false);
    }
    if (this.queuedLines === 0 && this.flushWaiters) {
      const waiters = this.flushWaiters;
      this.flushWaiters = undefined;
      for (const resolve of waiters) resolve();
    }
  }

  private enqueue(line: string, lines: number): Promise<void> {
    // The common case: nothing waits for 'drain', so the line is written now, with no promise
    // chain and no listeners (a shared resolved promise when the stream accepts it).
    if (this.busy === 0) return this.writeNow(line, lines, true);
    this.busy += 1;
    const result = this.tail.then(() => {
      this.busy -= 1;
      return this.writeNow(line, lines, false);
    });
    this.tail = result.then(noop, noop);
    return result;
  }

  private writeNow(line: string, lines: number, direct: boolean): Promise<void> {
    if (this.closedError) {
      this.dequeued(line.length, lines);
      return Promise.reject(this.closedError);
    }
    const { stream } = this;
    // Where the line is when its write callback reports an error: still inside `write()`, accepted
    // (its promise resolved: a late error), or waiting for 'drain' (`fail` rejects it).
    let state: 'writing' | 'accepted' | 'waiting' = 'writing';
    let fail: ((error: Error) => void) | undefined;
    let failedEarly: TransportError | undefined;
    let accepted: boolean;
    try {
      accepted = stream.write(line, (error) => {
        this.dequeued(line.length, lines);
        if (!error) return;
        if (state === 'writing') failedEarly ??= sendFailed(error);
        else if (state === 'waiting' && fail) fail(sendFailed(error));
        else this.onLateError(sendFailed(error));
      });
    } catch (error) {
      this.dequeued(line.length, lines);
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
  lines = 1;
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
