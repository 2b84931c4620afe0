/**
 * A small cache of verified principals, so a client's burst of requests with one token costs one
 * verification. Keyed by the SHA-256 of the token (never the token itself), bounded in size, and each entry
 * bounded by a time to live and by the principal's own expiry. Web-standard only (WebCrypto).
 * @module
 */
import type { Principal } from '../../../server/auth/principal.js';

export interface VerificationCacheOptions {
  /** How many principals to keep; the oldest entry goes first (default 1000). */
  maxEntries?: number;
  /**
   * How long a verification holds, in ms (default 60 000). A revoked API key or token stays accepted for up
   * to this long; an entry never outlives the principal's `expiresAt`.
   */
  ttlMs?: number;
}

interface Entry {
  principal: Principal;
  until: number;
}

const encoder = new TextEncoder();

async function digest(token: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(token)));
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

export class VerificationCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;

  constructor(options: VerificationCacheOptions = {}) {
    this.#maxEntries = Math.max(1, options.maxEntries ?? 1000);
    this.#ttlMs = Math.max(0, options.ttlMs ?? 60_000);
  }

  /** The key of `token`: its SHA-256 in hex. */
  key(token: string): Promise<string> {
    return digest(token);
  }

  /** The principal verified for this key, if still fresh. */
  get(key: string, now = Date.now()): Principal | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > now) return entry.principal;
    this.#entries.delete(key);
    return undefined;
  }

  /** Remembers a verified principal until the TTL or its expiry, whichever comes first. */
  set(key: string, principal: Principal, now = Date.now()): void {
    const until = Math.min(now + this.#ttlMs, principal.expiresAt ?? Number.POSITIVE_INFINITY);
    if (until <= now) return;
    this.#entries.delete(key);
    this.#entries.set(key, { principal, until });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
