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
import type { GatewayAuditRecord } from './gateway-records.js';
import { positiveOption, prefixOf, type RedisStoreOptions } from './redis-options.js';
import { redisOperation } from './redis-operation.js';
import { RedisScript } from './redis-script.js';

export interface RedisAuditStoreOptions extends RedisStoreOptions, AuditStoreOptions {}

// KEYS: the stream, the counter. ARGV: the record (JSON, without seq), max records, TTL (ms). Returns seq.
const APPEND = new RedisScript(`
local seq = redis.call('INCR', KEYS[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], '*', 's', seq, 'r', ARGV[1])
redis.call('XTRIM', KEYS[1], 'MINID', now - tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return seq`);

const NAME = 'Redis audit store';

export class RedisAuditStore implements AuditStore {
  readonly #client: Redis;
  readonly #key: string;
  readonly #max: number;
  readonly #ttlMs: number;

  constructor(client: Redis, options: RedisAuditStoreOptions = {}) {
    this.#client = client;
    this.#key = `${prefixOf(options)}gateway:audit`;
    this.#max = positiveOption(options.maxRecords ?? DEFAULT_AUDIT_MAX_RECORDS, 'maxRecords');
    this.#ttlMs = positiveOption(options.ttlMs ?? DEFAULT_AUDIT_TTL_MS, 'ttlMs');
  }

  append(record: Omit<GatewayAuditRecord, 'seq'>): Promise<GatewayAuditRecord> {
    const json = JSON.stringify(record);
    return redisOperation(this.#client, NAME, 'append', async () => {
      const seq = await APPEND.run(
        this.#client,
        [this.#key, `${this.#key}:seq`],
        [json, this.#max, this.#ttlMs],
      );
      return { seq: Number(seq), ...(JSON.parse(json) as Omit<GatewayAuditRecord, 'seq'>) };
    });
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
        records.push({ seq, ...(JSON.parse(json) as Omit<GatewayAuditRecord, 'seq'>) });
      }
      return records.reverse();
    });
  }
}
