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
import { redisOperation } from './redis-operation.js';
import { RedisSubscriber } from './redis-subscriber.js';
import { TaskCursors, cursorKey, cursorSecret } from './task-cursors.js';
import { answerInput, claimInput, takeAnswers } from './redis-task-input.js';
import { CREATE, CURSOR_KEY, GET, LIST, RENEW, UPDATE } from './redis-task-scripts.js';
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

/** Index members sort by creation time: 15 digits of ms since the epoch, ':', the task id. */
function indexMember(record: TaskRecord): string {
  return `${String(Date.parse(record.createdAt)).padStart(15, '0')}:${record.taskId}`;
}

/** An index member, as a cursor names one. */
const MEMBER = /^\d{15}:[^\s]{1,256}$/;

const base64urlOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
/** Index members one `list` call looks at, at most (the rest wait for the next page). */
const LIST_BUDGET = 1024;

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
