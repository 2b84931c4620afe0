/**
 * A gateway's audit records, numbered as they are stored, kept bounded: the latest `maxRecords`, none
 * older than `ttlMs`. Instances sharing the store share the records and their numbering.
 * @module
 */
import { digestOfText } from './digest-of-text.js';
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
  /**
   * Stores a call's record that nobody waits for, given the arguments' canonical JSON in place of their
   * digest (the record's own `argumentsDigest` is ignored): the store may keep the text and compute
   * `argumentsDigest` (`sha256:<hex>` of it) when the record is first read, so that records nobody reads
   * cost no hashing. Returns a promise where storing can fail (Redis), else nothing. Optional: a store
   * without it is given the record with its digest, by `append`.
   */
  appendUndigested?(
    record: Omit<GatewayAuditRecord, 'seq'>,
    argumentsText: string,
  ): Promise<void> | undefined;
  /**
   * The latest records, in the order stored (by `seq`), oldest first; not in the order of their `time` (a
   * call's record is stored when it ends, with the time it arrived).
   */
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
/**
 * The memory store keeps an undigested record's arguments text up to this length (longer ones are hashed
 * at once), and up to this many characters of such texts in all: bounded, whatever `maxRecords` is.
 */
export const MAX_UNDIGESTED_TEXT = 4_096;
export const MAX_UNDIGESTED_CHARS = 4 * 1024 * 1024;

/** A bounded in-memory store of the latest records. */
export class MemoryAuditStore implements AuditStore {
  readonly #max: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  /**
   * The latest `max` records, a ring: the next one goes in slot `#next`, over the oldest once all are used.
   * Beside each, in arrays of their own (one object per record less for the garbage collector): when it was
   * stored (ms), and the arguments text of a record whose digest is not computed yet (else undefined).
   */
  #records: GatewayAuditRecord[] = [];
  #ats: number[] = [];
  #texts: (string | undefined)[] = [];
  #next = 0;
  /** Characters in `#texts`. */
  #textChars = 0;
  #seq = 0;

  /** `options`: the settings, or (as before) the number of records kept. */
  constructor(options: MemoryAuditStoreOptions | number = {}) {
    const settings = typeof options === 'number' ? { maxRecords: options } : options;
    this.#max = Math.max(1, Math.floor(settings.maxRecords ?? DEFAULT_AUDIT_MAX_RECORDS));
    this.#ttlMs = settings.ttlMs ?? DEFAULT_AUDIT_TTL_MS;
    this.#now = settings.now ?? Date.now;
  }

  append(record: Omit<GatewayAuditRecord, 'seq'>): Promise<GatewayAuditRecord> {
    return Promise.resolve(copyRecord(this.#store(record, undefined)));
  }

  appendUndigested(record: Omit<GatewayAuditRecord, 'seq'>, argumentsText: string): undefined {
    const kept =
      argumentsText.length <= MAX_UNDIGESTED_TEXT &&
      this.#textChars + argumentsText.length <= MAX_UNDIGESTED_CHARS;
    const stored = this.#store(record, kept ? argumentsText : undefined);
    if (kept) this.#textChars += argumentsText.length;
    else stored.argumentsDigest = digestOfText(argumentsText);
    return undefined;
  }

  #store(record: Omit<GatewayAuditRecord, 'seq'>, text: string | undefined): GatewayAuditRecord {
    // A record that has its `seq` already (the gateway's own, numbered 0) is copied by V8's fast clone; one
    // without is copied too, more slowly, with `seq` last.
    const stored = { ...record, seq: ++this.#seq, caller: copyCaller(record.caller) };
    const slot = this.#next;
    this.#next = slot + 1 === this.#max ? 0 : slot + 1;
    if (slot === this.#records.length) {
      this.#records.push(stored);
      this.#ats.push(this.#now());
      this.#texts.push(text);
      return stored;
    }
    this.#textChars -= this.#texts[slot]?.length ?? 0;
    this.#records[slot] = stored;
    this.#ats[slot] = this.#now();
    this.#texts[slot] = text;
    return stored;
  }

  list(options: AuditListOptions = {}): Promise<GatewayAuditRecord[]> {
    const oldest = this.#now() - this.#ttlMs;
    const after = options.after ?? 0;
    const limit = Math.min(options.limit ?? this.#max, this.#max);
    const found: GatewayAuditRecord[] = [];
    const count = this.#records.length;
    // From the newest back: the latest `limit` records that are numbered after `after` and young enough.
    for (let back = 1; back <= count && found.length < limit; back++) {
      const i = (this.#next - back + count) % count;
      const record = this.#records[i]!;
      if (record.seq <= after || this.#ats[i]! < oldest) break;
      const text = this.#texts[i];
      if (text !== undefined) {
        record.argumentsDigest = digestOfText(text);
        this.#texts[i] = undefined;
        this.#textChars -= text.length;
      }
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
