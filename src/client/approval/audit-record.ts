/**
 * The client's audit record: one per tool call, with the decision taken and how the call ended. It never
 * holds the arguments themselves, only a SHA-256 digest of their canonical JSON (keys sorted), so a
 * record can be matched to a call without logging secrets.
 * @module
 */
import { canonicalJson } from '../../protocol/canonical-json.js';

export { canonicalJson };

/** How the call was let through, or not. */
export type ClientAuditDecision = 'allowed' | 'denied' | 'asked-once' | 'asked-always' | 'remembered';

export interface ClientAuditRecord {
  /** When the call was asked for (ISO 8601). */
  time: string;
  /** The server's name, as it introduced itself. */
  server: string | undefined;
  tool: string;
  decision: ClientAuditDecision;
  /** Why: the rule, the annotations, the approver's answer. */
  reason: string;
  /** `sha256:<hex>` of the canonical JSON of the arguments. */
  argumentsDigest: string;
  /** How long the call took (absent when it was not run). */
  durationMs?: number;
  /** `ok`, `tool-error` (an `isError` result) or `error` (it threw); absent when it was not run. */
  outcome?: 'ok' | 'tool-error' | 'error';
  /** The error's code when the outcome is `error` (a JSON-RPC code or a local error code). */
  errorCode?: string | number;
}

/** `sha256:<hex>` of the canonical JSON of `value`, through Web Crypto. */
export async function argumentsDigest(value: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(value));
  const hash = await globalThis.crypto.subtle.digest('SHA-256', bytes);
  const hex = Array.from(new Uint8Array(hash), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `sha256:${hex}`;
}
