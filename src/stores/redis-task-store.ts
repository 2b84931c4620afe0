/**
 * Task records in Redis, so that a task started by one process is polled, answered and cancelled through
 * any other: a hash per task (`<prefix>task:<taskId>`, one field per property) that Redis drops
 * `ttlMs` after the task's `createdAt`. A task whose `ttlMs` is null is kept `maxTtlMs` (every key has
 * a TTL). Creating and updating are Lua scripts: an id is never taken twice, and a terminal task never
 * changes, whatever runs at the same time.
 * @module
 */
import type { Redis } from 'ioredis';
import { decodeFields, encodeFields } from './redis-fields.js';
import { positiveOption, prefixOf, type RedisStoreOptions } from './redis-options.js';
import { RedisScript } from './redis-script.js';
import { redisOperation } from './redis-operation.js';
import {
  isTerminalStatus,
  type TaskChange,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from './task-store.js';

export interface RedisTaskStoreOptions extends RedisStoreOptions {
  /** The longest a task is kept, from its creation, in ms: a null or longer `ttlMs` gets this (default 7 days). */
  maxTtlMs?: number;
}

export const DEFAULT_TASK_MAX_TTL_MS = 7 * 24 * 60 * 60_000;

// KEYS: the task. ARGV: expires-at (ms since the epoch), then the record's field/JSON pairs.
const CREATE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return 1`);

const STATUSES: readonly TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
const TERMINAL = STATUSES.filter(isTerminalStatus)
  .map((status) => `status == '${JSON.stringify(status)}'`)
  .join(' or ');

// KEYS: the task. ARGV: n, then n field/JSON values, then fields to delete. Returns the record as
// stored afterwards (HGETALL's pairs), or false when there is no such task.
const UPDATE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local status = redis.call('HGET', KEYS[1], 'status')
if not (${TERMINAL}) then
  local n = tonumber(ARGV[1])
  if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 2, 1 + n)) end
  if #ARGV > 1 + n then redis.call('HDEL', KEYS[1], unpack(ARGV, 2 + n)) end
end
return redis.call('HGETALL', KEYS[1])`);

const NAME = 'Redis task store';

export class RedisTaskStore implements TaskStore {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #maxTtlMs: number;

  constructor(client: Redis, options: RedisTaskStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}task:`;
    this.#maxTtlMs = positiveOption(options.maxTtlMs ?? DEFAULT_TASK_MAX_TTL_MS, 'maxTtlMs');
  }

  async create(record: TaskRecord): Promise<void> {
    const ttlMs = Math.min(record.ttlMs ?? this.#maxTtlMs, this.#maxTtlMs);
    const expiresAt = Date.parse(record.createdAt) + ttlMs;
    if (!Number.isFinite(expiresAt)) throw new TypeError(`task ${record.taskId}: createdAt is not a date`);
    const { set } = encodeFields(record);
    const created = await redisOperation(this.#client, NAME, 'create', () =>
      CREATE.run(this.#client, [this.#prefix + record.taskId], [expiresAt, ...set]),
    );
    if (created === 0) throw new Error(`A task with the id ${record.taskId} already exists`);
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return redisOperation(this.#client, NAME, 'get', async () => {
      const record = decodeFields(await this.#client.hgetall(this.#prefix + taskId));
      return record as TaskRecord | undefined;
    });
  }

  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const { set, unset } = encodeFields(change);
    return redisOperation(this.#client, NAME, 'update', async () => {
      const stored = await UPDATE.run(this.#client, [this.#prefix + taskId], [set.length, ...set, ...unset]);
      return Array.isArray(stored) ? (decodeFields(stored) as TaskRecord | undefined) : undefined;
    });
  }

  async delete(taskId: string): Promise<void> {
    await redisOperation(this.#client, NAME, 'delete', () => this.#client.del(this.#prefix + taskId));
  }
}
