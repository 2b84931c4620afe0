/**
 * One SSE connection: a web `ReadableStream` body that events are written to, with keep-alive comments,
 * a callback when the client goes away, and a count of what the client has not read yet.
 * @module
 */

import { QueuedOutput } from '../queued-output.js';
import { formatSseEvent, type SseEventFields } from './sse-wire.js';
import { PACED_BYTES, PACED_MESSAGES, later } from './sse-pacing.js';
import { utf8Length } from './utf8-length.js';

/**
 * Where a sink's events go when they are not read through its web `body`: the node adapter's response
 * (`node-sse-writer.ts`), written to directly. `write` returns false when the output takes no more until
 * the sink's `resume()`; `end` ends it, with a last chunk or none. Chunks are SSE text: node:http encodes
 * a string as it writes it (UTF-8), where a `TextEncoder` per event showed in the profile.
 */
export interface SseOutput {
  write(chunk: string): boolean;
  end(last?: string): void;
}

const encoder = new TextEncoder();

/**
 * One SSE response body. Events wait in the sink's own queue until its reader asks for more (a pull
 * stream: the node adapter reads only while the socket takes what it writes), so what a client leaves
 * unread is counted, in the connection's {@link QueuedOutput} too when given. An event written while the
 * connection's unread output is at twice its limits ends the sink instead: it takes nothing more, ends
 * once what it holds is read, and `onoverflow` is called. The reader is either the web `body` (made when
 * first asked for) or an {@link SseOutput} given to `pipeTo`, never both.
 */
export class SseSink {
  #body: ReadableStream<Uint8Array> | undefined;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #output: SseOutput | undefined;
  #closed = false;
  /** The server ended the stream: it ends once what is queued has been read. */
  #ending = false;
  /** A read waits for the next event (nothing is queued), or the output takes writes. */
  #wanted = false;
  /** Events not yet read, as SSE text, with their UTF-8 lengths. */
  #queue: string[] = [];
  #lengths: number[] = [];
  #head = 0;
  #queuedBytes = 0;
  readonly #shared: QueuedOutput;
  readonly #keepAliveMs: number;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  /** Writers waiting for room (see `room`): resolved when the client reads or the sink closes. */
  #roomWaiters: Array<() => void> | undefined;
  /** Paced events written since writers last waited; a release of the waiters is scheduled. */
  #paced = 0;
  #waking = false;
  /** The client disconnected (not called when the server closes the sink). */
  oncancel?: () => void;
  /** The sink was ended for an event written while the connection held twice its limits unread. */
  onoverflow?: () => void;

  /**
   * @param keepAliveMs Comment lines while nothing else is sent (0: none).
   * @param shared The connection's unread output, which this sink's queue counts in (default: its own).
   */
  constructor(keepAliveMs = 0, shared: QueuedOutput = new QueuedOutput()) {
    this.#shared = shared;
    this.#keepAliveMs = keepAliveMs;
  }

  /**
   * Starts the keep-alive comments once a reader is there, if the stream is still open: a POST's stream
   * that its answer has already ended (the usual case on the node adapter) never needs a timer.
   */
  #startKeepAlive(): void {
    if (this.#keepAliveMs <= 0 || this.#closed || this.#keepAlive) return;
    this.#keepAlive = setInterval(() => this.#keepAliveComment(), this.#keepAliveMs);
    (this.#keepAlive as { unref?: () => void }).unref?.();
  }

  /** The events as a web stream (a pull stream: one event per read). */
  get body(): ReadableStream<Uint8Array> {
    this.#body ??= new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: (controller) => this.#pull(controller),
        cancel: () => this.disconnect(),
      },
      { highWaterMark: 0 },
    );
    this.#startKeepAlive();
    return this.#body;
  }

  /**
   * Sends the events to `output` instead of the web `body`: what is queued at once (all of it in one
   * `end` when the sink is already closed), then each event as it is written, while `output.write`
   * returns true; after a false, again from `resume()`.
   */
  pipeTo(output: SseOutput): void {
    this.#output = output;
    if (this.#ending && this.#head < this.#queue.length) {
      const whole =
        this.#head === this.#queue.length - 1
          ? this.#queue[this.#head]
          : this.#queue.slice(this.#head).join('');
      this.#drop();
      output.end(whole);
      return;
    }
    this.#startKeepAlive();
    this.resume();
  }

  /** The output takes writes again (`pipeTo`'s, after its `write` returned false). */
  resume(): void {
    this.#wanted = true;
    // `#end` lets go of the output; each delivery sets `#wanted` to what the output's `write` returned.
    while (this.#wanted && this.#output) {
      if (this.#head === this.#queue.length) {
        if (this.#ending) this.#end();
        return;
      }
      this.#pull(undefined);
    }
  }

  /** The client went away (the web body's cancel, or the node adapter's response closing). */
  disconnect(): void {
    this.#drop();
    if (this.#closed) return;
    this.#finish();
    this.oncancel?.();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Events written and not yet read. */
  get queuedMessages(): number {
    return this.#queue.length - this.#head;
  }

  /** Bytes of the events written and not yet read. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /**
   * Undefined while there is room: for writers that can wait (a tool's progress and log messages), so
   * that they go at the pace the client reads and a loop of them yields to other work. A promise, resolved
   * in a later turn of the event loop, once `PACED_MESSAGES` such events went out since the last wait (a
   * client that reads as fast as it is written to — the socket takes all — must not turn a tool's loop
   * into one endless run of microtasks), or while the stream holds `PACED_MESSAGES` events or
   * `PACED_BYTES` unread (or some while the connection's unread output is at its limits): then once the
   * client has read enough. Resolved at once when the sink closes.
   */
  room(): Promise<void> | undefined {
    if (this.#closed || (++this.#paced < PACED_MESSAGES && !this.#congested())) return undefined;
    const waited = new Promise<void>((resolve) => (this.#roomWaiters ??= []).push(resolve));
    this.#wake();
    return waited;
  }

  #congested(): boolean {
    const messages = this.queuedMessages;
    return (
      !this.#closed &&
      messages > 0 &&
      (messages >= PACED_MESSAGES || this.#queuedBytes >= PACED_BYTES || this.#shared.full)
    );
  }

  /** Resolves the writers waiting for room, in a later turn, when there is room (or the sink closed). */
  #wake(): void {
    if (!this.#roomWaiters || this.#waking || this.#congested()) return;
    this.#waking = true;
    later(() => {
      this.#waking = false;
      this.#paced = 0;
      const waiters = this.#roomWaiters ?? [];
      this.#roomWaiters = undefined;
      for (const resolve of waiters) resolve();
    });
  }

  /** Writes raw SSE text; false when the sink is closed (or was just ended for holding too much). */
  write(text: string, capped = true): boolean {
    if (this.#closed) return false;
    if (this.#wanted) {
      // A read is waiting, or the output takes writes: the event goes to it, never queued.
      this.#deliver(text);
      return true;
    }
    if (capped && this.#shared.overflows) {
      this.close();
      this.onoverflow?.();
      return false;
    }
    const bytes = utf8Length(text);
    this.#queue.push(text);
    this.#lengths.push(bytes);
    this.#queuedBytes += bytes;
    this.#shared.bytes += bytes;
    this.#shared.messages += 1;
    return true;
  }

  event(fields: SseEventFields): boolean {
    return this.write(formatSseEvent(fields));
  }

  /**
   * Queues an event replayed from the event store for a resumed stream: counted, never refused (the store
   * bounds a replay, and a replay cut short would be asked for again).
   */
  replayed(fields: SseEventFields): void {
    this.write(formatSseEvent(fields), false);
  }

  /** Ends the HTTP response once what is queued has been read. */
  close(): void {
    if (this.#closed) return;
    this.#finish();
    this.#ending = true;
    if (this.queuedMessages === 0) this.#end();
  }

  /** Ends the HTTP response now, dropping what is queued. */
  abort(): void {
    this.#drop();
    this.#finish();
    this.#ending = true;
    this.#end();
  }

  /** Gives a chunk to the waiting reader: the web body's (one per read) or the output (while it takes them). */
  #deliver(chunk: string): void {
    if (this.#output) {
      this.#wanted = this.#output.write(chunk);
      return;
    }
    this.#wanted = false;
    this.#controller?.enqueue(encoder.encode(chunk));
  }

  /** A read: the next queued chunk, or the end, or a wait for the next event. */
  #pull(controller: ReadableStreamDefaultController<Uint8Array> | undefined): void {
    if (this.#head === this.#queue.length) {
      if (this.#ending) this.#end();
      else this.#wanted = true;
      return;
    }
    const chunk = this.#queue[this.#head]!;
    const bytes = this.#lengths[this.#head]!;
    this.#queue[this.#head++] = '';
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#lengths = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#lengths = this.#lengths.slice(this.#head);
      this.#head = 0;
    }
    this.#queuedBytes -= bytes;
    this.#shared.bytes -= bytes;
    this.#shared.messages -= 1;
    if (controller) {
      this.#wanted = false;
      controller.enqueue(encoder.encode(chunk));
    } else this.#deliver(chunk);
    if (this.#ending && this.queuedMessages === 0) this.#end();
    if (this.#roomWaiters) this.#wake();
  }

  #drop(): void {
    this.#shared.bytes -= this.#queuedBytes;
    this.#shared.messages -= this.queuedMessages;
    this.#queue = [];
    this.#lengths = [];
    this.#head = 0;
    this.#queuedBytes = 0;
  }

  #end(): void {
    if (this.#output) {
      const output = this.#output;
      this.#output = undefined;
      this.#wanted = false;
      output.end();
      return;
    }
    try {
      this.#controller?.close();
    } catch {
      // already errored or cancelled
    }
  }

  /** A keep-alive comment, unless events already wait to be read (they keep the line busy enough). */
  #keepAliveComment(): void {
    if (this.queuedMessages === 0) this.write(': keep-alive\n\n');
  }

  #finish(): void {
    this.#closed = true;
    if (this.#keepAlive) clearInterval(this.#keepAlive);
    this.#wake();
  }
}
