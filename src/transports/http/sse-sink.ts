/**
 * One SSE connection: a web `ReadableStream` body that events are written to, with keep-alive comments,
 * a callback when the client goes away, and a count of what the client has not read yet.
 * @module
 */

import { QueuedOutput } from '../queued-output.js';

const encoder = new TextEncoder();

export interface SseEventFields {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

/** Formats one SSE event (every data line prefixed, as the SSE standard requires). */
export function formatSseEvent(fields: SseEventFields): string {
  let out = '';
  if (fields.event !== undefined) out += `event: ${fields.event}\n`;
  if (fields.id !== undefined) out += `id: ${fields.id}\n`;
  if (fields.retry !== undefined) out += `retry: ${fields.retry}\n`;
  if (fields.data !== undefined) {
    for (const line of fields.data.split('\n')) out += `data: ${line}\n`;
  } else {
    out += 'data: \n';
  }
  return `${out}\n`;
}

/**
 * One SSE response body. Events wait in the sink's own queue until the response's reader asks for more
 * (a pull stream: the node adapter reads only while the socket takes what it writes), so what a client
 * leaves unread is counted, in the connection's {@link QueuedOutput} too when given. An event written
 * while the connection's unread output is at twice its limits ends the sink instead: it takes nothing
 * more, ends once what it holds is read, and `onoverflow` is called.
 */
export class SseSink {
  readonly body: ReadableStream<Uint8Array>;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closed = false;
  /** The server ended the stream: it ends once what is queued has been read. */
  #ending = false;
  /** A read waits for the next event (nothing is queued). */
  #wanted = false;
  #queue: Uint8Array[] = [];
  #head = 0;
  #queuedBytes = 0;
  readonly #shared: QueuedOutput;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
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
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: (controller) => this.#pull(controller),
        cancel: () => {
          this.#drop();
          if (this.#closed) return;
          this.#finish();
          this.oncancel?.();
        },
      },
      { highWaterMark: 0 },
    );
    if (keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => this.#keepAliveComment(), keepAliveMs);
      (this.#keepAlive as { unref?: () => void }).unref?.();
    }
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

  /** Writes raw SSE text; false when the sink is closed (or was just ended for holding too much). */
  write(text: string, capped = true): boolean {
    const controller = this.#controller;
    if (this.#closed || !controller) return false;
    const chunk = encoder.encode(text);
    if (this.#wanted) {
      // A read is waiting: the event goes to it, never queued.
      this.#wanted = false;
      controller.enqueue(chunk);
      return true;
    }
    if (capped && this.#shared.overflows) {
      this.close();
      this.onoverflow?.();
      return false;
    }
    this.#queue.push(chunk);
    this.#queuedBytes += chunk.byteLength;
    this.#shared.bytes += chunk.byteLength;
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
    this.#end();
  }

  #pull(controller: ReadableStreamDefaultController<Uint8Array>): void {
    if (this.#head === this.#queue.length) {
      if (this.#ending) this.#end();
      else this.#wanted = true;
      return;
    }
    const chunk = this.#queue[this.#head]!;
    this.#queue[this.#head++] = EMPTY;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#queuedBytes -= chunk.byteLength;
    this.#shared.bytes -= chunk.byteLength;
    this.#shared.messages -= 1;
    controller.enqueue(chunk);
    if (this.#ending && this.queuedMessages === 0) this.#end();
  }

  #drop(): void {
    this.#shared.bytes -= this.#queuedBytes;
    this.#shared.messages -= this.queuedMessages;
    this.#queue = [];
    this.#head = 0;
    this.#queuedBytes = 0;
  }

  #end(): void {
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
  }
}

const EMPTY = new Uint8Array(0);

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};
