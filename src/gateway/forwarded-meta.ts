/**
 * What of a caller's request `_meta` the gateway passes on with the upstream request it makes for it: the
 * W3C trace context (`traceparent`, `tracestate`, `baggage`) and the caller's own keys (`com.example/…`),
 * so that a trace and an application's metadata cross the gateway as they would a direct connection. Not
 * what belongs to the caller's connection to the gateway: its `progressToken` (the gateway's client asks the
 * upstream for progress with a token of its own) and every key under a prefix the protocol reserves (a
 * label `modelcontextprotocol` or `mcp`: `io.modelcontextprotocol/protocolVersion`, the related-task key,
 * …), which the gateway's client sets for its own connection where the upstream's revision has them.
 * @module
 */
import type { JsonObject } from '../index.js';

const RESERVED_LABELS: ReadonlySet<string> = new Set(['modelcontextprotocol', 'mcp']);

/**
 * Whether `key` is the protocol's: `progressToken`, or a key whose prefix (the part before its first `/`)
 * has a label `modelcontextprotocol` or `mcp`. That covers both revisions' rules (2025-06-18: any label
 * but the last; 2025-11-25: the second) and what a peer at either revision reserves.
 */
function isProtocolKey(key: string): boolean {
  if (key === 'progressToken') return true;
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  return key
    .slice(0, slash)
    .split('.')
    .some((label) => RESERVED_LABELS.has(label.toLowerCase()));
}

/** The keys of a caller's request `_meta` that go upstream with its request; undefined when none do. */
export function forwardedMeta(meta: JsonObject | undefined): JsonObject | undefined {
  if (meta === undefined) return undefined;
  let forwarded: JsonObject | undefined;
  for (const [key, value] of Object.entries(meta)) {
    if (value === undefined || isProtocolKey(key)) continue;
    forwarded ??= {};
    // A member named `__proto__` (JSON.parse makes one) stays a member: assigned, it would set the prototype.
    if (key === '__proto__')
      Object.defineProperty(forwarded, key, { value, enumerable: true, writable: true });
    else forwarded[key] = value;
  }
  return forwarded;
}
