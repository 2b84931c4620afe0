/**
 * W3C Trace Context (`traceparent`, `tracestate`) from a request's `_meta`, the keys MCP reserves for
 * OpenTelemetry propagation. A malformed `traceparent` is ignored, and so is `tracestate` with it, as
 * the W3C recommendation asks.
 * @module
 */
import type { JsonObject } from '../protocol/jsonrpc.js';

export interface TraceContext {
  /** `version-traceid-parentid-flags`, e.g. `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`. */
  traceparent?: string;
  /** Vendor-specific trace data, only alongside a valid `traceparent`. */
  tracestate?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * Whether `value` is a valid `traceparent`: version 00 exactly as specified; a later version (not `ff`)
 * may carry more fields after the four it shares with 00. Trace and parent ids must not be all zeros.
 */
export function isTraceparent(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = TRACEPARENT.exec(value);
  if (!match) return false;
  const [, version, traceId, parentId, , rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return false;
  return !/^0+$/.test(traceId ?? '') && !/^0+$/.test(parentId ?? '');
}

/** The trace context a request carries in `_meta`, if any. */
export function traceContext(meta: JsonObject | undefined): TraceContext {
  const traceparent = meta?.traceparent;
  if (!isTraceparent(traceparent)) return {};
  const tracestate = meta?.tracestate;
  return typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
}
