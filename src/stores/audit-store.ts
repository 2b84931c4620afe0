/**
 * A gateway's audit records, numbered as they are stored, kept bounded: the latest `maxRecords`, none
 * older than `ttlMs`. Instances sharing the store share the records and their numbering.
 * @module
 */
import type { GatewayAuditRecord } from './gateway-records.js';

export interface AuditListOptions {
  /** At most this many, the latest (default: all kept). */
  limit?: number;
  /** Only records numbered higher. */
  after?: number;
}

export interface AuditStore {
  /**
   * Stores a record, numbering it (a `seq` the record has already is replaced); resolves with it as
   * stored.
   */
  append(record: Omit<GatewayAuditRecord, 'seq'>): Promise<GatewayAuditRecord>;
  /** The latest records, oldest first. */
  list(options?: AuditListOptions): Promise<GatewayAuditRecord[]>;
}

export interface AuditStoreOptions {
  /** Records kept (default 1,000; the oldest go first). */
  maxRecords?: number;
  /** How long a record is kept, in ms (default 7 days). */
  ttlMs?: number;
}

export interface MemoryAuditStoreOptions extends AuditStoreOptions {
  /** The clock, in ms since the epoch (tests). */
  now?: () => number;
}

export const DEFAULT_AUDIT_MAX_RECORDS = 1_000;
export const DEFAULT_AUDIT_TTL_MS = 7 * 24 * 60 * 60_000;

/** A bounded in-memory store of the latest records. */
export class MemoryAuditStore implements AuditStore {
  readonly #max: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #records: GatewayAuditRecord[] = [];
  /** When each record was stored (ms), beside it: one object per record less for the garbage collector. */
  #ats: number[] = [];
  #seq = 0;

  /** `options`: the settings, or (as before) the number of records kept. */
  constructor(options: MemoryAuditStoreOptions | number = {}) {
    const settings = typeof options === 'number' ? { maxRecords: options } : options;
    this.#max = Math.max(1, Math.floor(settings.maxRecords ?? DEFAULT_AUDIT_MAX_RECORDS));
    this.#ttlMs = settings.ttlMs ?? DEFAULT_AUDIT_TTL_MS;
    this.#now = settings.now ?? Date.now;
  }

  append(record: Omit<GatewayAuditRecord, 'seq'>): Promise<GatewayAuditRecord> {
    // A record that has its `seq` already (the gateway's own, numbered 0) is copied by V8's fast clone; one
    // without is copied too, more slowly, with `seq` last.
    const stored = { ...record, seq: ++this.#seq, caller: copyCaller(record.caller) };
    this.#records.push(stored);
    this.#ats.push(this.#now());
    // Trimmed in batches: one slice per `max / 4` records, not one shift per record.
    if (this.#records.length > this.#max + Math.ceil(this.#max / 4)) {
      this.#records = this.#records.slice(-this.#max);
      this.#ats = this.#ats.slice(-this.#max);
    }
    return Promise.resolve(copyRecord(stored));
  }

  list(options: AuditListOptions = {}): Promise<GatewayAuditRecord[]> {
    const oldest = this.#now() - this.#ttlMs;
    const after = options.after ?? 0;
    const limit = Math.min(options.limit ?? this.#max, this.#max);
    const found: GatewayAuditRecord[] = [];
    // From the newest back: the latest `limit` records that are numbered after `after` and young enough.
    for (let i = this.#records.length - 1; i >= 0 && found.length < limit; i--) {
      const record = this.#records[i]!;
      if (record.seq <= after || this.#ats[i]! < oldest || this.#records.length - i > this.#max) break;
      found.push(copyRecord(record));
    }
    return Promise.resolve(found.reverse());
  }
}

/**
 * A copy of a record that shares nothing changeable with it: its fields are strings and numbers but for
 * `caller`, an object of strings. (structuredClone did the same at ≈10% of a gateway's CPU per call: an
 * audit record is appended for every call.)
 */
function copyRecord(record: GatewayAuditRecord): GatewayAuditRecord {
  // A spread that only overwrites a member the record has is V8's fast clone; `Object.assign` (member by
  // member) and a spread that adds a member are not (see `withMember` in the protocol layer).
  return { ...record, caller: copyCaller(record.caller) };
}

/** A caller no one can change: itself when frozen (the gateway's one anonymous caller), else a copy. */
function copyCaller(caller: GatewayAuditRecord['caller']): GatewayAuditRecord['caller'] {
  return Object.isFrozen(caller) ? caller : { ...caller };
}
