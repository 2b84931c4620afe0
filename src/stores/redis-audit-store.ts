/**
 * A gateway's audit records in Redis, shared by every instance: a stream (`<prefix>gateway:audit`) of the
 * latest `maxRecords`, none older than `ttlMs` (trimmed as records are added, and not read once older), numbered by a
 * counter (`<prefix>gateway:audit:seq`); both keys expire `ttlMs` after the last record.
 * @module
 */
import type { Redis } from 'ioredis';
import {
  DEFAULT_AUDIT_MAX_RECORDS,
  DEFAULT_AUDIT_TTL_MS,
  type AuditListOptions,
  type AuditStore,
  type AuditStoreOptions,
} from './audit-store.js';
import { digestOfText } from './digest-of-text.js';
import type { GatewayAuditRecord } from './gateway-records.js';
import { positiveOption, prefixOf, type RedisStoreOptions } from './redis-options.js';
import { redisOperation } from './redis-operation.js';
import { APPEND } from './redis-audit-scripts.js';

export interface RedisAuditStoreOptions extends RedisStoreOptions, AuditStoreOptions {}

/** Records appended in one turn of the event loop go in one script call; at most this many in one. */
const MAX_BATCH = 256;

interface Pending {
  json: string;
  resolve(record: GatewayAuditRecord): void;
  reject(error: unknown): void;
}

const NAME = 'Redis audit store';

export class RedisAuditStore implements AuditStore {
  readonly #client: Redis;
  readonly #key: string;
  readonly #max: number;
  readonly #ttlMs: number;
  /** Records appended this turn, not yet sent. */
  #pending: Pending[] = [];
  #flushing: NodeJS.Immediate | undefined;

  constructor(client: Redis, options: RedisAuditStoreOptions = {}) {
    this.#client = client;
    this.#key = `${prefixOf(options)}gateway:audit`;
    this.#max = positiveOption(options.maxRecords ?? DEFAULT_AUDIT_MAX_RECORDS, 'maxRecords');
    this.#ttlMs = positiveOption(options.ttlMs ?? DEFAULT_AUDIT_TTL_MS, 'ttlMs');
  }

  /**
   * Appends a record. The records appended in one turn of the event loop (a burst of calls' records) are
   * numbered and added by one script call, in the order appended; each resolves with its number.
   */
  append(record: Omit<GatewayAuditRecord, 'seq'>): Promise<GatewayAuditRecord> {
    // Stored without a `seq` the record has already (the gateway's are numbered 0): the script numbers it.
    const json = JSON.stringify('seq' in record ? withoutSeq(record) : record);
    return new Promise<GatewayAuditRecord>((resolve, reject) => {
      this.#pending.push({ json, resolve, reject });
      if (this.#pending.length >= MAX_BATCH) this.#flush();
      else this.#flushing ??= setImmediate(() => this.#flush());
    });
  }

  /** Appends the record with its digest computed now (records on Redis are read by other instances). */
  appendUndigested(record: Omit<GatewayAuditRecord, 'seq'>, argumentsText: string): Promise<void> {
    return this.append({ ...record, argumentsDigest: digestOfText(argumentsText) }).then(noop);
  }

  #flush(): void {
    if (this.#flushing) clearImmediate(this.#flushing);
    this.#flushing = undefined;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    redisOperation(this.#client, NAME, 'append', () =>
      APPEND.run(
        this.#client,
        [this.#key, `${this.#key}:seq`],
        [this.#max, this.#ttlMs, ...batch.map((pending) => pending.json)],
      ),
    ).then(
      (last) => {
        const first = Number(last) - batch.length + 1;
        batch.forEach((pending, i) =>
          pending.resolve({
            ...(JSON.parse(pending.json) as Omit<GatewayAuditRecord, 'seq'>),
            seq: first + i,
          }),
        );
      },
      (error: unknown) => {
        for (const pending of batch) pending.reject(error);
      },
    );
  }

  list(options: AuditListOptions = {}): Promise<GatewayAuditRecord[]> {
    const limit = Math.min(options.limit ?? this.#max, this.#max);
    const after = options.after ?? 0;
    return redisOperation(this.#client, NAME, 'list', async () => {
      const oldest = Math.max(0, Date.now() - this.#ttlMs);
      const entries = await this.#client.xrevrange(this.#key, '+', String(oldest), 'COUNT', limit);
      const records: GatewayAuditRecord[] = [];
      for (const [, fields] of entries) {
        const seq = Number(fields[fields.indexOf('s') + 1]);
        if (seq <= after) break;
        const json = fields[fields.indexOf('r') + 1] ?? '{}';
        records.push({ ...(JSON.parse(json) as Omit<GatewayAuditRecord, 'seq'>), seq });
      }
      return records.reverse();
    });
  }
}

function withoutSeq(
  record: Omit<GatewayAuditRecord, 'seq'> & { seq?: unknown },
): Omit<GatewayAuditRecord, 'seq'> {
  const { seq: _seq, ...rest } = record;
  return rest;
}

function noop(): void {}
