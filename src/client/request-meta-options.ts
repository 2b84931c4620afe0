/**
 * What a request that carries the caller's `_meta` (`callTool`, `getPrompt`, `readResource`) adds to the
 * client's options (`RequestMetaOptions`), and the `_meta` it sends.
 * @module
 */
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import type { ExchangeOptions } from './exchange-options.js';

export interface RequestMetaOptions extends ExchangeOptions {
  /**
   * The request's `_meta`: keys of your own (`com.example/tenant`) and the W3C trace context (`traceparent`,
   * `tracestate`, `baggage`). The client's own keys win over these: the `progressToken` (`onProgress` asks
   * for one; one given here is left out) and, in the stateless era, the era's `io.modelcontextprotocol/…`.
   * Anything but a JSON object is refused (a TypeError, nothing sent).
   */
  meta?: JsonObject;
}

/**
 * The request's own `_meta` (`RequestMetaOptions.meta`) without a `progressToken`, the client's being
 * `onProgress`'s; a TypeError for a `meta` that is no JSON object (`null`, an array, a string).
 */
export function ownMeta(meta: unknown): JsonObject {
  if (!isJsonObject(meta)) {
    const what = meta === null ? 'null' : Array.isArray(meta) ? 'an array' : `a ${typeof meta}`;
    throw new TypeError(`meta must be a JSON object (the request's _meta), not ${what}`);
  }
  const { progressToken: _ignored, ...own } = meta;
  return own;
}
