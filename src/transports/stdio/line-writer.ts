/**
 * Ordered, backpressure-aware writing of lines to a Node writable stream.
 * @module
 */
import { LocalErrorCode, errorMessage } from '../../protocol/errors.js';
import { TransportError } from '../transport-error.js';

/**
 * Writes lines one after another. When `write()` returns false it waits for `'drain'` before
 * writing the next line, so a slow reader bounds memory and the order of lines is kept.
 * Each `write` resolves once its line was accepted by the stream (not necessarily flushed).
 */
export class LineWriter {
  private tail: Promise<void> = Promise.resolve();
  private closedError: Error | undefined;
  private abortWait: ((error: Error) => void) | undefined;

  /**
   * @param stream Where lines go.
   * @param onLateError Called with a write error that arrives after its `write` already resolved.
   */
  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly onLateError: (error: TransportError) => void = () => {},
  ) {}

  /** Queues one line; resolves when the stream accepted it, rejects with a `TransportError`. */
  write(line: string): Promise<void> {
    const result = this.tail.then(() => this.writeNow(line));
    this.tail = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  /** Rejects the line waiting for `'drain'` and every later one with `error`. */
  close(error: Error): void {
    this.closedError ??= error;
    this.abortWait?.(this.closedError);
  }

  private writeNow(line: string): Promise<void> {
    if (this.closedError) return Promise.reject(this.closedError);
    const { stream } = this;
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const cleanup = (): void => {
        settled = true;
        this.abortWait = undefined;
        stream.removeListener('drain', onDrain);
        stream.removeListener('close', onClose);
        stream.removeListener('error', onError);
      };
      const fail = (error: Error): void => {
        if (settled) return;
        cleanup();
        reject(error);
      };
      const onDrain = (): void => {
        if (settled) return;
        cleanup();
        resolve();
      };
      const onClose = (): void => fail(closedError());
      const onError = (error: Error): void => fail(sendFailed(error));

      let accepted: boolean;
      try {
        accepted = stream.write(line, (error) => {
          if (!error) return;
          if (settled) this.onLateError(sendFailed(error));
          else fail(sendFailed(error));
        });
      } catch (error) {
        fail(sendFailed(error));
        return;
      }
      if (settled) return;
      if (accepted) {
        cleanup();
        resolve();
        return;
      }
      this.abortWait = fail;
      stream.once('drain', onDrain);
      stream.once('close', onClose);
      stream.once('error', onError);
    });
  }
}

function sendFailed(cause: unknown): TransportError {
  return new TransportError(LocalErrorCode.SendFailed, `Could not write message: ${errorMessage(cause)}`, {
    cause,
  });
}

function closedError(): TransportError {
  return new TransportError(LocalErrorCode.ConnectionClosed, 'The output stream closed');
}
