/**
 * One SSE stream of a Streamable HTTP client, followed across reconnections: a POST's response
 * stream (done once every response it owes has arrived, or the client gave up on them) or the standalone
 * GET stream (never done).
 * @module
 */
import { CancellationSource, type Cancellation } from '../../protocol/engine/cancellation.js';
import type { RequestId } from '../../protocol/jsonrpc.js';
import { readEventStream } from './read-event-stream.js';
import type { ReadGate } from './read-gate.js';
import { MIN_SERVER_RETRY_MS, wait, type ReconnectPolicy } from './reconnect-policy.js';
import { SseParser } from './sse-parser.js';

/** What a (re)connection attempt gave: a stream to read, a reason to try again later, or the end. */
export type Attempt = Response | 'retry' | 'stop';

/** What the stream needs from its transport. */
export interface StreamHost {
  /** Aborted when the transport closes; stops waits and reads. */
  readonly signal: AbortSignal;
  readonly policy: ReconnectPolicy;
  /**
   * GETs the endpoint with the stream's `Last-Event-ID` (cancelled with the stream); counts failures on
   * the stream.
   */
  reconnect(stream: ResumableStream): Promise<Attempt>;
  /** The largest event read, in characters (`maxMessageSize`). */
  readonly maxMessageSize: number;
  /** Shut while the client is behind: the stream reads no more meanwhile. */
  readonly gate: ReadGate;
  /** The data of one `message` event, and the stream it came on. */
  deliver(data: string, stream: ResumableStream): void;
  /** An event passed `maxMessageSize` (it is skipped); returns whether to read on. */
  tooLarge(stream: ResumableStream): boolean;
  /** The stream cannot go on; answer what it owes. */
  abandon(stream: ResumableStream, reason: string): void;
}

/**
 * How long a POST's stream that owes no response any more may stay open: the server SHOULD end it after
 * the last one. One kept open past this is dropped, so a server cannot hold a connection of ours per call.
 */
export const ANSWERED_STREAM_GRACE_MS = 1000;

/**
 * A stream read for less than this, after which the server asked for a reconnection sooner than
 * {@link MIN_SERVER_RETRY_MS}, was cut short: those in a row count as failed reconnections (see `follow`).
 */
export const CUT_SHORT_MS = 1000;

export class ResumableStream {
  readonly kind: 'post' | 'get';
  /** The requests the POST carried (none for the GET stream). */
  readonly requestIds: readonly RequestId[];
  /** The requests whose responses this stream still owes (POST streams only). */
  readonly pending: Set<RequestId>;
  /** The `Last-Event-ID` to resume with. */
  lastEventId: string | undefined;
  /** The server's last `retry` value, in ms. */
  retryMs: number | undefined;
  /** Reconnections that failed in a row. */
  failures = 0;
  /** Why the last connection or reconnection failed. */
  lastError: unknown;
  /** A response stream was read (a POST's always was; the GET stream once a GET opened it). */
  opened: boolean;
  /** The last response stream read brought a message (the server's `retry` is then respected as is). */
  progressed = false;
  /**
   * Streams in a row that ended within {@link CUT_SHORT_MS} of their opening with a `retry` under
   * {@link MIN_SERVER_RETRY_MS}.
   */
  cutShort = 0;
  readonly #host: StreamHost;
  readonly #cancel = new CancellationSource();
  /** A response stream is being read now. */
  #reading = false;
  /** Drops the stream being read once it owes nothing and the server did not end it. */
  #grace: ReturnType<typeof setTimeout> | undefined;

  constructor(kind: 'post' | 'get', requestIds: readonly RequestId[], host: StreamHost) {
    this.kind = kind;
    this.requestIds = requestIds;
    this.pending = new Set(requestIds);
    this.opened = kind === 'post';
    this.#host = host;
  }

  /**
   * Cancels what the stream has open (a POST, its response stream, a reconnection): cancelled when the
   * client gave up on every response it owed, when it owes none and the server did not end it, and when
   * the transport closes.
   */
  get cancellation(): Cancellation {
    return this.#cancel;
  }

  /** Drops the connection the stream has open, and makes no other. */
  cancel(reason: string): void {
    this.#cancel.abort(new Error(reason));
  }

  /**
   * A response it owed arrived (on it, or on another stream): once it owes none, the response stream being
   * read has {@link ANSWERED_STREAM_GRACE_MS} to end before it is dropped.
   */
  settled(): void {
    if (!this.#reading || !this.over || this.#grace !== undefined || this.#cancel.aborted) return;
    this.#grace = setTimeout(
      () => this.cancel('it stayed open after its last response'),
      ANSWERED_STREAM_GRACE_MS,
    );
    this.#grace.unref?.();
  }

  /** Whether the stream is over: cancelled, or a POST's stream that owes nothing. */
  get over(): boolean {
    return this.#cancel.aborted || (this.kind === 'post' && this.pending.size === 0);
  }

  /**
   * Reads `first`, then keeps reconnecting (after the server's `retry`, backing off on failures)
   * and reading until the stream owes nothing, the transport closes, or it has to give up.
   */
  async follow(first: Attempt): Promise<void> {
    const host = this.#host;
    let next = first;
    for (;;) {
      if (next === 'stop') return;
      if (next !== 'retry') await this.#read(next);
      if (host.signal.aborted || this.over) return;
      if (this.kind === 'post' && this.lastEventId === undefined) {
        return host.abandon(this, 'the server ended it before the response, with no event id to resume');
      }
      // A server that ends its stream at once asking for a reconnection at once is respected once after a
      // stream that brought a message (2025-11-25: the client MUST respect `retry`); each further one in a
      // row counts as a failed reconnection: the client backs off, then gives up (it looped for ever).
      const rushed = Math.max(0, this.cutShort - (this.progressed ? 1 : 0));
      const failed = this.failures + rushed;
      if (failed >= host.policy.maxRetries) {
        return host.abandon(
          this,
          rushed === 0
            ? `${this.failures} reconnections failed`
            : `the server ended it at once ${this.cutShort} times in a row, asking for a reconnection within ${this.retryMs ?? 0} ms`,
        );
      }
      const delay = host.policy.delay(failed, this.retryMs, this.progressed && rushed === 0);
      if (!(await wait(delay, host.signal))) return;
      if (this.over) return;
      next = await host.reconnect(this);
    }
  }

  async #read(response: Response): Promise<void> {
    this.opened = true;
    this.progressed = false;
    const started = performance.now();
    const parser = new SseParser({ lastEventId: this.lastEventId, maxEventSize: this.#host.maxMessageSize });
    this.#reading = true;
    try {
      if (!response.body) return;
      await readEventStream(
        response.body,
        parser,
        (event) => {
          if (event.tooLarge) return this.#host.tooLarge(this) && !this.#host.signal.aborted;
          if (event.type === 'message' && event.data !== '') {
            this.progressed = true;
            this.#host.deliver(event.data, this);
          }
          return !this.#host.signal.aborted && !this.#cancel.aborted;
        },
        this.#host.gate,
      );
    } catch (error) {
      this.lastError = error; // the connection broke: resume as after a clean end
    } finally {
      this.#reading = false;
      clearTimeout(this.#grace);
      this.#grace = undefined;
      this.lastEventId = parser.lastEventId;
      this.retryMs = parser.retry ?? this.retryMs;
      const rushed = this.retryMs !== undefined && this.retryMs < MIN_SERVER_RETRY_MS;
      this.cutShort = rushed && performance.now() - started < CUT_SHORT_MS ? this.cutShort + 1 : 0;
    }
  }
}
