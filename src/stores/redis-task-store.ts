/**
 * Task records in Redis, so that a task started by one process is polled, answered and cancelled through
 * any other: a hash per task (`<prefix>task:t:<taskId>`, one field per property) that Redis drops
 * `ttlMs` after the task's `createdAt`. A task whose `ttlMs` is null is kept `maxTtlMs` (every key has
 * a TTL). Creating and updating are Lua scripts: an id is never taken twice, and a terminal task never
 * changes, whatever runs at the same time. Task ids come from clients (`tasks/get`…), so the task hashes
 * have a namespace of their own (`task:t:`): no id names the store's other keys (`task:tasks-of:`,
 * `task:input:`), and reading a key that is not a task's hash answers "no such task" all the same. A task
 * with an `owner` joins the owner's index
 * (`<prefix>task:tasks-of:<owner>`, a sorted set ordered by creation time, kept as long as its newest task),
 * which `list` pages through, dropping the ids of tasks that expired as it meets them (and each task created
 * those among the oldest four); its cursors are
 * signed with a key every process reads from `<prefix>tasks:cursor-key`. A task created with a `limit`
 * joins the running set of its key (`<prefix>task:running-of:<key>`, ids by expiry), which each such
 * creation prunes of the tasks that ended before counting it; those join the key's ended set
 * (`<prefix>task:ended-of:<key>`), of which the oldest past the limit's `maxKept` are deleted. A task cancelled
 * through a process that does not run it is published on `<prefix>tasks:cancelled` (`onCancelled`). The
 * answers and claims of a task's questions live beside it (`redis-task-input.ts`); answers kept are told
 * on `<prefix>tasks:answered` (`onAnswers`).
 *
 * Leases: a task created with `{ lease: true }` holds a `lease` field (when it runs out, ms on the Redis
 * server's clock, `leaseMs` after its creation or last renewal) that the process running it renews every
 * `leaseRenewalMs` (`renewLeases`). Reading a task whose lease ran out while it had not ended (`get`,
 * `list`) settles it `failed` (-32603, "the server instance running task X stopped before it finished")
 * in the same script, so two readers never both settle it, and a renewal that reaches Redis first, however
 * late, keeps the task running.
 * @module
 */
import type { Redis } from 'ioredis';
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import { decodeFields, encodeFields } from './redis-fields.js';
import { positiveOption, prefixOf, type RedisStoreOptions } from './redis-options.js';
import { RedisScript } from './redis-script.js';
import { redisOperation } from './redis-operation.js';
import { RedisSubscriber } from './redis-subscriber.js';
import { TaskCursors, cursorKey, cursorSecret } from './task-cursors.js';
import { NOW_MS, TERMINAL, answerInput, claimInput, takeAnswers } from './redis-task-input.js';
import {
  checkedUpdateTime,
  InvalidTaskCursor,
  TaskLimitReached,
  type TaskChange,
  type TaskCreateOptions,
  type TaskPage,
  type TaskPageRequest,
  type TaskRecord,
  type TaskStore,
} from './task-store.js';

export interface RedisTaskStoreOptions extends RedisStoreOptions {
  /** The longest a task is kept, from its creation, in ms: a null or longer `ttlMs` gets this (default 7 days). */
  maxTtlMs?: number;
  /** The pub/sub connection to share (`RedisStores` passes its own); default: one of the store's own. */
  subscriber?: RedisSubscriber;
  /**
   * How long a leased task runs on without a renewal from the process running it before a read settles it
   * `failed` (that process is taken for dead), in ms (default 15,000). It is renewed every third of that.
   */
  leaseMs?: number;
}

export const DEFAULT_TASK_MAX_TTL_MS = 7 * 24 * 60 * 60_000;
export const DEFAULT_TASK_LEASE_MS = 15_000;

// Settling a task (key, id) whose lease ran out while it had not ended: failed with -32603,
// lastUpdatedAt `at` (an ISO date as JSON).
const LEASES = `${NOW_MS}
local function expire_lease(key, id, at)
  local lease = redis.call('HGET', key, 'lease')
  if not lease or tonumber(lease) > now_ms() then return end
  local status = redis.call('HGET', key, 'status')
  if ${TERMINAL} then return end
  local message = 'The server instance running task ' .. id .. ' stopped before it finished'
  redis.call('HSET', key, 'status', '"failed"', 'statusMessage', cjson.encode(message),
    'error', cjson.encode({ code = -32603, message = message }), 'lastUpdatedAt', at)
  redis.call('HDEL', key, 'inputRequests', 'lease')
end
`;

/**
 * Members of an owner's index looked at, oldest first, by each task created: those of expired tasks go.
 * Four per task: what expired goes three times as fast as tasks come, past a task that lives longer.
 */
const PRUNED_PER_CREATE = 4;

// KEYS: the task, the running tasks of its limit key and its ended ones (the task's key again for both when
// it has no limit), then (when it has an owner) the owner's index. ARGV: expires-at (ms since the epoch), the
// index member, the lease (ms; 0: none), the task keys' prefix (`task:t:`), the limit (0: none), the time now
// (JSON), the ended tasks kept (0: every one), then the record's field/JSON pairs. Returns 0 when the id is
// taken, -1 when the limit is reached, else 1.
// The running set (its ids scored by when they expire) holds the tasks created under the key that may
// still run: expired ones, ended ones and those whose lease ran out (settled here) are dropped before
// counting, so a task ended by any process frees its place, and the set never holds more than the limit.
// Those found ended join the ended set (scored alike: by creation, for tasks of one ttl), of which the
// oldest past ARGV[7] go, hash, answers and all (an owner's index drops their ids as it meets them).
// The index lives as long as its newest task; each task created drops the members of expired tasks among
// the index's oldest PRUNED_PER_CREATE (a listing drops those it meets), so an owner that never lists does
// not grow it for as long as it keeps starting tasks.
const CREATE = new RedisScript(`${LEASES}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local now = now_ms()
local max = tonumber(ARGV[5])
local function extend(key, til)
  local left = redis.call('PTTL', key)
  if left < 0 or now + left < tonumber(til) then redis.call('PEXPIREAT', key, til) end
end
if max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  local found = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
  for i = 1, #found, 2 do
    local id = found[i]
    local key = ARGV[4] .. id
    expire_lease(key, id, ARGV[6])
    local status = redis.call('HGET', key, 'status')
    if not status or ${TERMINAL} then
      redis.call('ZREM', KEYS[2], id)
      if status then
        redis.call('ZADD', KEYS[3], found[i + 1], id)
        extend(KEYS[3], found[i + 1])
      end
    end
  end
  if redis.call('ZCARD', KEYS[2]) >= max then return -1 end
  local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[7])
  if tonumber(ARGV[7]) > 0 and over > 0 then
    local input = string.sub(ARGV[4], 1, #ARGV[4] - 2) .. 'input:'
    for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, over - 1)) do
      local status = redis.call('HGET', ARGV[4] .. id, 'status')
      if status and ${TERMINAL} then redis.call('DEL', ARGV[4] .. id, input .. id) end
      redis.call('ZREM', KEYS[3], id)
    end
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 8))
if tonumber(ARGV[3]) > 0 then redis.call('HSET', KEYS[1], 'lease', now + tonumber(ARGV[3])) end
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
if max > 0 then
  redis.call('ZADD', KEYS[2], ARGV[1], string.sub(KEYS[1], #ARGV[4] + 1))
  extend(KEYS[2], ARGV[1])
end
if KEYS[4] then
  for _, member in ipairs(redis.call('ZRANGEBYLEX', KEYS[4], '-', '+', 'LIMIT', 0, ${PRUNED_PER_CREATE})) do
    if redis.call('EXISTS', ARGV[4] .. string.sub(member, 17)) == 0 then redis.call('ZREM', KEYS[4], member) end
  end
  redis.call('ZADD', KEYS[4], 0, ARGV[2])
  extend(KEYS[4], ARGV[1])
end
return 1`);

// KEYS: the owner's index. ARGV: the task keys' prefix (`task:t:`), where to start ('-' or '(' + member), the page
// size, how many index members one call may look at, the time now (JSON). Returns the cursor ('' when
// this is the last page), then the HGETALL of each task on the page. Members of tasks that expired are
// removed as they are met; tasks whose lease ran out are settled.
const LIST = new RedisScript(`${LEASES}
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
      expire_lease(key, string.sub(member, 17), ARGV[5])
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

/** An index member, as a cursor names one. */
const MEMBER = /^\d{15}:[^\s]{1,256}$/;

// KEYS: the cursor key's key. ARGV: a new secret. Stores it unless there is one; returns the one kept.
const CURSOR_KEY = new RedisScript(`redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])`);

const base64urlOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
/** Index members one `list` call looks at, at most (the rest wait for the next page). */
const LIST_BUDGET = 1024;

// KEYS: the task. ARGV: its id, the time now (JSON). The HGETALL of the task, settled first when its
// lease ran out; empty for a key that is not a hash (no task).
const GET = new RedisScript(`${LEASES}
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return {} end
expire_lease(KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGETALL', KEYS[1])`);

// KEYS: the tasks. ARGV: the lease (ms). Renews the lease of each task that has one and has not ended;
// returns the indexes (from 1) of the others (ended, gone, or settled by a reader: their run should stop).
const RENEW = new RedisScript(`${LEASES}
local lost = {}
local until_ms = now_ms() + tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local status = redis.call('HGET', key, 'status')
  if status and not (${TERMINAL}) and redis.call('HEXISTS', key, 'lease') == 1 then
    redis.call('HSET', key, 'lease', until_ms)
  else
    lost[#lost + 1] = i
  end
end
return lost`);

// KEYS: the task. ARGV: the change's lastUpdatedAt as JSON when it is checked ('' when not: see
// checkedUpdateTime), n, then n field/JSON values, then fields to delete. A checked change older than the
// record's lastUpdatedAt (a write that timed out on a frozen Redis and ran when it thawed, after a later
// one) changes nothing. Returns the record as stored afterwards (HGETALL's pairs), or false when there is no
// such task.
const UPDATE = new RedisScript(`
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return false end
local status, last = unpack(redis.call('HMGET', KEYS[1], 'status', 'lastUpdatedAt'))
local stale = ARGV[1] ~= '' and last
  and string.match(last, '^"%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d%.%d%d%dZ"$') ~= nil and ARGV[1] < last
if not (${TERMINAL}) and not stale then
  local n = tonumber(ARGV[2])
  if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 3, 2 + n)) end
  if #ARGV > 2 + n then redis.call('HDEL', KEYS[1], unpack(ARGV, 3 + n)) end
end
return redis.call('HGETALL', KEYS[1])`);

const NAME = 'Redis task store';

export class RedisTaskStore implements TaskStore {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #maxTtlMs: number;
  readonly #leaseMs: number;
  /** How often the process running a leased task renews its lease (`renewLeases`), in ms. */
  readonly leaseRenewalMs: number;
  /** Where cancellations are published (`<prefix>tasks:cancelled`, the task id as the message). */
  readonly #cancelled: string;
  /** Where answers to a task's questions are published (`<prefix>tasks:answered`, `{ taskId, responses }`). */
  readonly #answered: string;
  readonly #cursorKeyName: string;
  /** `list` cursors (`r<index member>.<mac>`), signed with the key all processes share. */
  readonly #cursors = new TaskCursors('r', () => this.#cursorKey());
  #cursorKeyRead: Promise<CryptoKey> | undefined;
  readonly #subscriber: RedisSubscriber;
  readonly #ownsSubscriber: boolean;

  constructor(client: Redis, options: RedisTaskStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}task:`;
    this.#cancelled = `${prefixOf(options)}tasks:cancelled`;
    this.#answered = `${prefixOf(options)}tasks:answered`;
    this.#cursorKeyName = `${prefixOf(options)}tasks:cursor-key`;
    this.#maxTtlMs = positiveOption(options.maxTtlMs ?? DEFAULT_TASK_MAX_TTL_MS, 'maxTtlMs');
    this.#leaseMs = positiveOption(options.leaseMs ?? DEFAULT_TASK_LEASE_MS, 'leaseMs');
    this.leaseRenewalMs = Math.max(1, Math.floor(this.#leaseMs / 3));
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

  async publishAnswers(taskId: string, responses: JsonObject): Promise<void> {
    const message = JSON.stringify({ taskId, responses });
    await redisOperation(this.#client, NAME, 'publish answers', () =>
      this.#client.publish(this.#answered, message),
    );
  }

  onAnswers(
    listener: (taskId: string, responses: JsonObject) => void,
    missed?: () => void,
  ): Promise<() => void> {
    return this.#subscriber.subscribe(this.#answered, {
      message: (text) => {
        const answered = parseAnswers(text);
        if (answered) listener(answered.taskId, answered.responses);
      },
      ...(missed ? { missed } : {}),
    });
  }

  async answerInput(taskId: string, responses: JsonObject): Promise<string[]> {
    const kept = await redisOperation(this.#client, NAME, 'answerInput', () =>
      answerInput(this.#client, this.#inputKeys(taskId), responses),
    );
    // The answers wait in Redis: a process that misses this message takes them when it reconnects.
    if (kept.length > 0)
      await this.publishAnswers(taskId, Object.fromEntries(kept.map((key) => [key, responses[key]!])));
    return kept;
  }

  takeAnswers(taskId: string): Promise<JsonObject> {
    return redisOperation(this.#client, NAME, 'takeAnswers', () =>
      takeAnswers(this.#client, this.#inputKeys(taskId)),
    );
  }

  claimInput(taskId: string, keys: readonly string[], claimant: string, ms: number): Promise<string[]> {
    return redisOperation(this.#client, NAME, 'claimInput', () =>
      claimInput(this.#client, this.#inputKeys(taskId), keys, claimant, ms),
    );
  }

  /** The task's key and its input hash's. */
  #inputKeys(taskId: string): [task: string, input: string] {
    return [this.#taskKey(taskId), `${this.#prefix}input:${taskId}`];
  }

  /** Closes the subscriber connection when the store opened it. */
  close(): void {
    if (this.#ownsSubscriber) this.#subscriber.close();
  }

  async create(record: TaskRecord, options: TaskCreateOptions = {}): Promise<void> {
    const ttlMs = Math.min(record.ttlMs ?? this.#maxTtlMs, this.#maxTtlMs);
    const expiresAt = Date.parse(record.createdAt) + ttlMs;
    if (!Number.isFinite(expiresAt)) throw new TypeError(`task ${record.taskId}: createdAt is not a date`);
    const { set } = encodeFields(record);
    const { limit } = options;
    const task = this.#taskKey(record.taskId);
    const keys = limit
      ? [task, `${this.#prefix}running-of:${limit.key}`, `${this.#prefix}ended-of:${limit.key}`]
      : [task, task, task];
    if (record.owner !== undefined) keys.push(this.#ownerKey(record.owner));
    const created = await redisOperation(this.#client, NAME, 'create', () =>
      CREATE.run(this.#client, keys, [
        expiresAt,
        indexMember(record),
        options.lease ? this.#leaseMs : 0,
        this.#taskKey(''),
        limit?.max ?? 0,
        JSON.stringify(new Date().toISOString()),
        limit?.maxKept ?? 0,
        ...set,
      ]),
    );
    if (created === 0) throw new Error(`A task with the id ${record.taskId} already exists`);
    if (created === -1) throw new TaskLimitReached(limit?.max ?? 0);
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return redisOperation(this.#client, NAME, 'get', async () => {
      const at = JSON.stringify(new Date().toISOString());
      return taskOf(await GET.run(this.#client, [this.#taskKey(taskId)], [taskId, at]), taskId);
    });
  }

  async renewLeases(taskIds: readonly string[]): Promise<string[]> {
    if (taskIds.length === 0) return [];
    const keys = taskIds.map((taskId) => this.#taskKey(taskId));
    const lost = await redisOperation(this.#client, NAME, 'renewLeases', () =>
      RENEW.run(this.#client, keys, [this.#leaseMs]),
    );
    return (lost as number[]).map((index) => taskIds[index - 1]!);
  }

  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const { set, unset } = encodeFields(change);
    return redisOperation(this.#client, NAME, 'update', async () => {
      const at = checkedUpdateTime(change);
      const stored = await UPDATE.run(
        this.#client,
        [this.#taskKey(taskId)],
        [at === undefined ? '' : JSON.stringify(at), set.length, ...set, ...unset],
      );
      return Array.isArray(stored) ? taskOf(stored, taskId) : undefined;
    });
  }

  async delete(taskId: string): Promise<void> {
    await redisOperation(this.#client, NAME, 'delete', () => this.#client.del(...this.#inputKeys(taskId)));
  }

  async list(owner: string, page: TaskPageRequest): Promise<TaskPage> {
    const cursor = page.cursor;
    const after = cursor === undefined ? undefined : await this.#cursors.open(owner, cursor);
    if (after !== undefined && !MEMBER.test(after)) throw new InvalidTaskCursor(`Unknown cursor ${cursor}`);
    const start = after === undefined ? '-' : `(${after}`;
    const reply = await redisOperation(this.#client, NAME, 'list', () =>
      LIST.run(
        this.#client,
        [this.#ownerKey(owner)],
        [this.#taskKey(''), start, page.limit, LIST_BUDGET, JSON.stringify(new Date().toISOString())],
      ),
    );
    const [next, ...hashes] = reply as [string, ...unknown[][]];
    const records = hashes
      .map((hash) => taskOf(hash))
      .filter((record): record is TaskRecord => record !== undefined);
    return next === '' ? { records } : { records, nextCursor: await this.#cursors.issue(owner, next) };
  }

  /**
   * The key that signs `list` cursors, shared by every process on this Redis (`<prefix>tasks:cursor-key`,
   * 32 random bytes the first listing stores): a cursor one process issued pages on through any other.
   * Read once; a failure to read it is tried again by the next listing.
   */
  #cursorKey(): Promise<CryptoKey> {
    this.#cursorKeyRead ??= redisOperation(this.#client, NAME, 'list', async () => {
      const proposed = base64urlOf(cursorSecret());
      const secret = await CURSOR_KEY.run(this.#client, [this.#cursorKeyName], [proposed]);
      return cursorKey(new TextEncoder().encode(String(secret)));
    }).catch((error: unknown) => {
      this.#cursorKeyRead = undefined;
      throw error;
    });
    return this.#cursorKeyRead;
  }

  /** A task's hash: in `task:t:`, a namespace no other key of the store shares, whatever the id. */
  #taskKey(taskId: string): string {
    return `${this.#prefix}t:${taskId}`;
  }

  #ownerKey(owner: string): string {
    return `${this.#prefix}tasks-of:${owner}`;
  }
}

/**
 * The record a task's hash holds (its lease is the store's own business), or undefined when there is none
 * (or it is not the hash of the task `taskId`, when given).
 */
function taskOf(hash: unknown, taskId?: string): TaskRecord | undefined {
  if (!Array.isArray(hash)) return undefined;
  const record = decodeFields(hash);
  if (record === undefined || (taskId !== undefined && record.taskId !== taskId)) return undefined;
  delete record.lease;
  return record as unknown as TaskRecord;
}

/** A `tasks:answered` message, or undefined for one that is not (another writer's, a damaged one). */
function parseAnswers(text: string): { taskId: string; responses: JsonObject } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value) || typeof value.taskId !== 'string' || !isJsonObject(value.responses))
    return undefined;
  return { taskId: value.taskId, responses: value.responses };
}
