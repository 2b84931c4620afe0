/**
 * Output a connection holds for a client that has not read it yet, against the connection's limits: the
 * stdio server's stdout, and an HTTP session's SSE streams (which share one count).
 * @module
 */

/** Bytes a connection may hold for a client that does not read, by default (8 MiB) … */
export const DEFAULT_MAX_QUEUED_BYTES = 8 * 1024 * 1024;
/** … and messages. */
export const DEFAULT_MAX_QUEUED_MESSAGES = 4096;

export interface QueueLimitOptions {
  /** Bytes of output waiting for the client to read them (default 8 MiB). */
  maxQueuedBytes?: number;
  /** Messages waiting for the client to read them (default 4096). */
  maxQueuedMessages?: number;
}

/**
 * The unread output of one connection. At either limit the connection stops taking input from its
 * client (`full`); at twice a limit (the client still does not read while work already under way goes on
 * answering) a stream given more is ended instead (`overflows`), so the count stays bounded.
 */
export class QueuedOutput {
  bytes = 0;
  messages = 0;
  readonly maxBytes: number;
  readonly maxMessages: number;

  constructor(options: QueueLimitOptions = {}) {
    this.maxBytes = positive(options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES, 'maxQueuedBytes');
    this.maxMessages = positive(
      options.maxQueuedMessages ?? DEFAULT_MAX_QUEUED_MESSAGES,
      'maxQueuedMessages',
    );
  }

  /** The client is behind: take no more input from it. */
  get full(): boolean {
    return this.bytes >= this.maxBytes || this.messages >= this.maxMessages;
  }

  /** A stream given more now must be ended rather than take it. */
  get overflows(): boolean {
    return this.bytes >= 2 * this.maxBytes || this.messages >= 2 * this.maxMessages;
  }

  /** What the client's streams hold, for the error a refused request gets. */
  describe(): string {
    return `${this.bytes} bytes in ${this.messages} messages wait for the client to read them (limits: ${this.maxBytes} bytes, ${this.maxMessages} messages)`;
  }
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  return value;
}
