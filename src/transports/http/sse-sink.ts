/**
 * One SSE connection: a web `ReadableStream` body that events are written to, with keep-alive comments
 * and a callback when the client goes away.
 * @module
 */

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

export class SseSink {
  readonly body: ReadableStream<Uint8Array>;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closed = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  /** The client disconnected (not called when the server closes the sink). */
  oncancel?: () => void;

  constructor(keepAliveMs = 0) {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        if (this.#closed) return;
        this.#finish();
        this.oncancel?.();
      },
    });
    if (keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => this.write(': keep-alive\n\n'), keepAliveMs);
      (this.#keepAlive as { unref?: () => void }).unref?.();
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  write(text: string): boolean {
    if (this.#closed || !this.#controller) return false;
    try {
      this.#controller.enqueue(encoder.encode(text));
      return true;
    } catch {
      this.#finish();
      return false;
    }
  }

  event(fields: SseEventFields): boolean {
    return this.write(formatSseEvent(fields));
  }

  /** Ends the HTTP response. */
  close(): void {
    if (this.#closed) return;
    this.#finish();
    try {
      this.#controller?.close();
    } catch {
      // already errored or cancelled
    }
  }

  #finish(): void {
    this.#closed = true;
    if (this.#keepAlive) clearInterval(this.#keepAlive);
  }
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};
