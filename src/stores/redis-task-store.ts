/**
 * Task records in Redis, so that a task started by one process is polled, answered and cancelled through
 * any other: a hash per task (`<prefix>task:<taskId>`, one field per property) that Redis drops
 * `ttlMs` after the task's `createdAt`. A task whose `ttlMs` is null is kept `maxTtlMs` (every key has
 * a TTL). Creating and updating are Lua scripts: an id is never taken twice, and a terminal task never
 * changes, whatever runs at the same time. A task with an `owner` joins the owner's index
 * (`<prefix>task:tasks-of:<owner>`, a sorted set ordered by creation time, kept as long as its newest task),
 * which `list` pages through, dropping the ids of tasks that expired as it meets them. A task cancelled
 * through a process that does not run it is published on `<prefix>tasks:cancelled` (`onCancelled`).
 * @module
 */
import type { Redis } from 'ioredis';
import { decodeFields, encodeFields } from './redis-fields.js';
import { positiveOption, prefixOf, type RedisStoreOptions } from './redis-options.js';
import { RedisScript } from './redis-script.js';
import { redisOperation } from './redis-operation.js';
import { RedisSubscriber } from './redis-subscriber.js';
import {
  InvalidTaskCursor,
  isTerminalStatus,
  type TaskChange,
  type TaskPage,
  type TaskPageRequest,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from './task-store.js';

export interface RedisTaskStoreOptions extends RedisStoreOptions {
  /** The longest a task is kept, from its creation, in ms: a null or longer `ttlMs` gets this (default 7 days). */
  maxTtlMs?: number;
  /** The pub/sub connection to share (`RedisStores` passes its own); default: one of the store's own. */
  subscriber?: RedisSubscriber;
}

export const DEFAULT_TASK_MAX_TTL_MS = 7 * 24 * 60 * 60_000;

// KEYS: the task, then (when it has an owner) the owner's index. ARGV: expires-at (ms since the epoch),
// the index member, then the record's field/JSON pairs. The index lives as long as its newest task.
const CREATE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
if KEYS[2] then
  redis.call('ZADD', KEYS[2], 0, ARGV[2])
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local left = redis.call('PTTL', KEYS[2])
  if left < 0 or now + left < tonumber(ARGV[1]) then redis.call('PEXPIREAT', KEYS[2], ARGV[1]) end
end
return 1`);

// KEYS: the owner's index. ARGV: the task key prefix, where to start ('-' or '(' + member), the page
// size, how many index members one call may look at. Returns the cursor ('' when this is the last page),
// then the HGETALL of each task on the page. Members of tasks that expired are removed as they are met.
const LIST = new RedisScript(`
local limit = tonumber(ARGV[3])
local budget = tonumber(ARGV[4])
local start = ARGV[2]
local out = {''}
local records = 0
local last = nil
while budget > 0 do
  local batch = redis.call('ZRANGEBYLEX', KEYS[1], start, '+', 'LIMIT', 0, 64)
  if #batch == 0 then return out end
  for _, member in ipairs(batch) do
    budget = budget - 1
    local key = ARGV[1] .. string.sub(member, 17)
    if redis.call('EXISTS', key) == 1 then
      if records == limit then
        out[1] = last
        return out
      end
      out[#out + 1] = redis.call('HGETALL', key)
      records = records + 1
    else
      redis.call('ZREM', KEYS[1], member)
    end
    last = member
    if budget == 0 then break end
  end
  start = '(' .. last
end
out[1] = last
return out`);

/** Index members sort by creation time: 15 digits of ms since the epoch, ':', the task id. */
function indexMember(record: TaskRecord): string {
  return `${String(Date.parse(record.createdAt)).padStart(15, '0')}:${record.taskId}`;
}

const CURSOR = /^r\d{15}:[^\s]{1,256}$/;
/** Index members one `list` call looks at, at most (the rest wait for the next page). */
const LIST_BUDGET = 1024;

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
  /** Where cancellations are published (`<prefix>tasks:cancelled`, the task id as the message). */
  readonly #cancelled: string;
  readonly #subscriber: RedisSubscriber;
  readonly #ownsSubscriber: boolean;

  constructor(client: Redis, options: RedisTaskStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}task:`;
    this.#cancelled = `${prefixOf(options)}tasks:cancelled`;
    this.#maxTtlMs = positiveOption(options.maxTtlMs ?? DEFAULT_TASK_MAX_TTL_MS, 'maxTtlMs');
    this.#ownsSubscriber = options.subscriber === undefined;
    this.#subscriber = options.subscriber ?? new RedisSubscriber(client);
  }

  async publishCancelled(taskId: string): Promise<void> {
    await redisOperation(this.#client, NAME, 'publish cancelled', () =>
      this.#client.publish(this.#cancelled, taskId),
    );
  }

  onCancelled(listener: (taskId: string) => void): Promise<() => void> {
    return this.#subscriber.subscribe(this.#cancelled, { message: listener });
  }

  /** Closes the subscriber connection when the store opened it. */
  close(): void {
    if (this.#ownsSubscriber) this.#subscriber.close();
  }

  async create(record: TaskRecord): Promise<void> {
    const ttlMs = Math.min(record.ttlMs ?? this.#maxTtlMs, this.#maxTtlMs);
    const expiresAt = Date.parse(record.createdAt) + ttlMs;
    if (!Number.isFinite(expiresAt)) throw new TypeError(`task ${record.taskId}: createdAt is not a date`);
    const { set } = encodeFields(record);
    const keys = [this.#prefix + record.taskId];
    if (record.owner !== undefined) keys.push(this.#ownerKey(record.owner));
    const created = await redisOperation(this.#client, NAME, 'create', () =>
      CREATE.run(this.#client, keys, [expiresAt, indexMember(record), ...set]),
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

  async list(owner: string, page: TaskPageRequest): Promise<TaskPage> {
    const cursor = page.cursor;
    if (cursor !== undefined && !CURSOR.test(cursor)) throw new InvalidTaskCursor(`Unknown cursor ${cursor}`);
    const start = cursor === undefined ? '-' : `(${cursor.slice(1)}`;
    const reply = await redisOperation(this.#client, NAME, 'list', () =>
      LIST.run(this.#client, [this.#ownerKey(owner)], [this.#prefix, start, page.limit, LIST_BUDGET]),
    );
    const [next, ...hashes] = reply as [string, ...unknown[][]];
    const records = hashes
      .map((hash) => decodeFields(hash) as TaskRecord | undefined)
      .filter((record): record is TaskRecord => record !== undefined);
    return next === '' ? { records } : { records, nextCursor: `r${next}` };
  }

  #ownerKey(owner: string): string {
    return `${this.#prefix}tasks-of:${owner}`;
  }
}
