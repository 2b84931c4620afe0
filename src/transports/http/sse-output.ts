/**
 * The output an SSE sink's events can be piped to instead of its web `body` (`SseSink.pipeTo`).
 * @module
 */

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
