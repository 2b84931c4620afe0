/**
 * Reads an HTTP response body as a Server-Sent Events stream until it ends.
 * @module
 */
import type { ReadGate } from './read-gate.js';
import type { SseEvent, SseParser } from './sse-parser.js';

/**
 * Decodes `body` as UTF-8 (a leading BOM is dropped), feeds it to `parser` and calls `onEvent` for
 * each complete event, in order. Resolves when the stream ends; rejects when it breaks (or is
 * aborted through the fetch's signal). `onEvent` may return `false` to stop reading early. While `gate` is
 * shut, nothing more is read, nor delivered of a chunk already read: the server's writes wait.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  parser: SseParser,
  onEvent: (event: SseEvent) => boolean | void,
  gate?: ReadGate,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      if (gate?.shut) await gate.opened();
      const { done, value } = await reader.read();
      if (done) return;
      for (const event of parser.push(decoder.decode(value, { stream: true }))) {
        if (gate?.shut) await gate.opened();
        if (onEvent(event) === false) {
          await reader.cancel().catch(() => undefined);
          return;
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}
