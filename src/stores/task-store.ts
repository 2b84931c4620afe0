/**
 * Task records, of both forms of tasks (the 2025-11-25 core and the 2026-07-28 extension): what
 * `tasks/get` reports about a tool call that runs in the background. The running handler stays in the
 * process that started it; the record is what a shared store can hold for several processes. A record
 * is kept until its `ttlMs` (counted from `createdAt`) has elapsed, and a terminal one never changes
 * again. `list` pages through the tasks of one owner (2025-11-25 `tasks/list`), oldest first.
 * @module
 */
import type { ErrorObject } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { isTerminalStatus, type TaskInfo } from '../protocol/types/tasks.js';
import { TaskCursors, cursorKey, cursorSecret } from './task-cursors.js';

export { isTerminalStatus, type TaskStatus } from '../protocol/types/tasks.js';

/** One question a task waits on (an entry of `inputRequests`: `elicitation/create`, …). */
export interface TaskInputRequest {
  method: string;
  params?: JsonObject;
}

/**
 * A task as a store keeps it: the task's fields (its `taskId` unguessable — without authorization it is all
 * that guards the task; `ttlMs` from `createdAt`, null: until the store is cleared) and what it runs.
 */
export interface TaskRecord extends TaskInfo {
  /** The request the task runs (`tools/call`). */
  method: string;
  /**
   * The form of tasks it takes on the wire: `'2025-11-25'` (the core of that revision: `tasks/result`,
   * a tool error fails the task) or undefined, the 2026-07-28 extension. Each form serves only its own.
   */
  revision?: '2025-11-25';
  /**
   * The authenticated caller that created the task, once requests carry one; a task is then served to
   * that principal only. Undefined: bound to nothing but its id.
   */
  principal?: string;
  /**
   * Whose `tasks/list` shows the task (2025-11-25): the principal, or for anonymous callers the session
   * that created it. Undefined: no listing shows it.
   */
  owner?: string;
  /** While `input_required`: the questions not answered yet, by key. */
  inputRequests?: Record<string, TaskInputRequest>;
  /**
   * When `completed`: the request's result (a tool result with `isError: true` too, in the 2026-07-28
   * form); in the 2025-11-25 form also when `failed` with a tool result whose `isError` is true.
   */
  result?: JsonObject;
  /** When `failed`: the JSON-RPC error the request ended with. */
  error?: ErrorObject;
}

/** The fields a running task changes (`lastUpdatedAt` with each change). */
export type TaskChange = Partial<
  Pick<
    TaskRecord,
    'status' | 'statusMessage' | 'lastUpdatedAt' | 'pollIntervalMs' | 'inputRequests' | 'result' | 'error'
  >
>;

/** ISO 8601 as `toISOString` writes it: two such times compare as their strings do. */
const CANONICAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The `lastUpdatedAt` of a change that `update` applies only when it is not older than the record's: one
 * that does not end the task, with a time as `toISOString` writes it (else undefined: applied as it comes).
 */
export function checkedUpdateTime(change: TaskChange): string | undefined {
  if (change.status !== undefined && isTerminalStatus(change.status)) return undefined;
  const at = change.lastUpdatedAt;
  return at !== undefined && CANONICAL_TIME.test(at) ? at : undefined;
}

/** Whether `change` is older than `record`'s last update (see `checkedUpdateTime`): it landed late. */
function isStale(record: TaskRecord, change: TaskChange): boolean {
  const at = checkedUpdateTime(change);
  return at !== undefined && CANONICAL_TIME.test(record.lastUpdatedAt) && at < record.lastUpdatedAt;
}

/** How a task is created. */
export interface TaskCreateOptions {
  /**
   * Leased (a store that has `renewLeases`): the task is settled `failed` by a read once the process
   * running it has not renewed its lease in time (that process is taken for dead). Other stores ignore it.
   */
  lease?: boolean;
  /**
   * Caps the running tasks of `key` (a caller: the task's owner, or whoever the server counts it against):
   * when `max` of the tasks created with that key have not ended nor expired, the task is not stored and
   * `create` rejects with a `TaskLimitReached`. A task that ends, or expires, frees its place, whichever
   * process sharing the store ends it.
   */
  limit?: TaskLimit;
}

/** A cap on one caller's running tasks, and on its ended ones kept (`TaskCreateOptions.limit`). */
export interface TaskLimit {
  /** Whose tasks are counted (tasks created with another key, or none, are not). */
  key: string;
  /** How many may run at once (a positive integer). */
  max: number;
  /**
   * How many of the key's ended tasks are kept at most (a positive integer; default: every one, until its
   * `ttlMs`): creating the task drops the oldest ended ones (by creation) past it, before their `ttlMs`, so
   * that a caller running short tasks in a loop does not pile up records. Tasks that ended since the key's
   * last creation are counted from the next: the key holds at most `maxKept` + `max` ended tasks.
   */
  maxKept?: number;
}

/** `create` refused a task: its caller has `max` tasks running (`TaskCreateOptions.limit`). */
export class TaskLimitReached extends Error {
  override readonly name = 'TaskLimitReached';
  readonly max: number;

  constructor(max: number) {
    super(`Too many running tasks: at most ${max} at once`);
    this.max = max;
  }
}

export interface TaskStore {
  /**
   * Stores a new task. Resolves once a `get` for its id, from any process sharing the store, finds it;
   * rejects with a `TaskLimitReached` when `options.limit` is reached.
   */
  create(record: TaskRecord, options?: TaskCreateOptions): Promise<void>;
  /** The task, or undefined when there is none of that id (never created, or expired). */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Applies `change` unless the task is terminal (fields set to undefined are removed), or the change does
   * not end the task and its `lastUpdatedAt` is older than the record's (a write that timed out on a shared
   * store and landed after a later one: times as `toISOString` writes them are compared). Resolves with the
   * record as stored afterwards (unchanged when the change was not applied), or undefined when there is no
   * such task.
   */
  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  /** Forgets the task. */
  delete(taskId: string): Promise<void>;
  /**
   * One page of `owner`'s live tasks, oldest first, at most `limit`; `nextCursor` when there may be more.
   * A cursor this store did not issue to `owner` (made up, altered, or another owner's) rejects with an
   * `InvalidTaskCursor`: cursors are signed (`task-cursors.ts`).
   */
  list(owner: string, page: TaskPageRequest): Promise<TaskPage>;
  /**
   * Optional, for a store several processes share: tells them that `taskId` was cancelled by one that does
   * not run it, so the one running it can abort its handler. At most once, to processes listening then.
   */
  publishCancelled?(taskId: string): Promise<void>;
  /**
   * Optional, with `publishCancelled`: calls `listener` with each task id another process published as
   * cancelled. Resolves, once listening, with the function that stops it.
   */
  onCancelled?(listener: (taskId: string) => void): Promise<() => void>;
  /**
   * Optional, for a store several processes share: hands the answers a `tasks/update` brought to a process
   * that does not run the task to the processes listening (`onAnswers`), so the one running it takes them.
   */
  publishAnswers?(taskId: string, responses: JsonObject): Promise<void>;
  /**
   * Optional, with `publishAnswers`: calls `listener` with each task id and answers another process
   * published (or `answerInput` kept), and `missed` when messages may have been lost meanwhile (a
   * reconnection): the process should then `takeAnswers` of its tasks. Resolves, once listening, with the
   * function that stops it.
   */
  onAnswers?(
    listener: (taskId: string, responses: JsonObject) => void,
    missed?: () => void,
  ): Promise<() => void>;
  /**
   * Optional, with `takeAnswers` and `claimInput`, for a store several processes share: keeps the answers
   * to questions the task has pending (`inputRequests`) and that have no answer kept yet (others are
   * ignored), until the process running the task takes them; tells the listening processes (`onAnswers`).
   * Resolves with the keys kept.
   */
  answerInput?(taskId: string, responses: JsonObject): Promise<string[]>;
  /**
   * Optional, with `answerInput`: resolves with the answers kept for the task's pending questions, by key.
   * An answer is handed to every take until its question is no longer pending (then it goes), so that a take
   * whose reply was lost (a shared store that timed out may still run it, late) loses no answer.
   */
  takeAnswers?(taskId: string): Promise<JsonObject>;
  /**
   * Optional, with `answerInput`: claims the right to send the task's pending questions `keys` to the
   * client for `ms` (a claim by `claimant` is renewed), so that one question is sent once whichever
   * processes carry the task's questions. A question that has an answer kept is not claimed; a claim not
   * renewed in time lapses. Resolves with the keys `claimant` holds now.
   */
  claimInput?(taskId: string, keys: readonly string[], claimant: string, ms: number): Promise<string[]>;
  /**
   * Optional, with `leaseRenewalMs`, for a store several processes share: renews the leases of tasks this
   * process runs (created with `{ lease: true }`). Resolves with the ids among them that have ended or are
   * gone (settled by another process, say): their runs here should stop.
   */
  renewLeases?(taskIds: readonly string[]): Promise<string[]>;
  /** With `renewLeases`: how often, in ms, a process renews the leases of the tasks it runs. */
  readonly leaseRenewalMs?: number;
}

export interface TaskPageRequest {
  /** From the previous page's `nextCursor`; undefined: the first page. */
  cursor?: string;
  /** Records per page (a positive integer). */
  limit: number;
}

export interface TaskPage {
  records: TaskRecord[];
  nextCursor?: string;
}

export { InvalidTaskCursor } from './task-cursors.js';

export interface MemoryTaskStoreOptions {
  /** The clock, in ms since the epoch (tests). */
  now?: () => number;
}

interface Slot {
  record: TaskRecord;
  /** When the record expires (ms since the epoch); Infinity: never. */
  expiresAt: number;
  /** Its place in creation order (what `list` cursors name). */
  seq: number;
  /** Answers kept for its questions (`answerInput`), by key. */
  answers?: Map<string, JsonObject>;
  /** Who may send its questions, by key, and until when (`claimInput`). */
  claims?: Map<string, { by: string; until: number }>;
}

/** Expired records are dropped when they are next read, and by a sweep at most once a second. */
const SWEEP_INTERVAL_MS = 1000;

/** The in-memory default: the records of this process, lost when it exits. */
export class MemoryTaskStore implements TaskStore {
  readonly #slots = new Map<string, Slot>();
  /** Task ids by owner, in creation order (ids of tasks gone are dropped as they are met). */
  readonly #owned = new Map<string, Array<[seq: number, taskId: string]>>();
  /** The tasks created under each `limit` key that may still run (those found ended go as they are met). */
  readonly #running = new Map<string, Set<string>>();
  /** The tasks of each `limit` key found ended, by creation (`seq`, then id), the oldest first. */
  readonly #ended = new Map<string, Array<[seq: number, taskId: string]>>();
  readonly #now: () => number;
  #sweptAt = 0;
  #seq = 0;
  /** `list` cursors, signed with a key of this store's own (`m<seq>.<mac>`). */
  readonly #cursors = new TaskCursors('m', () => (this.#cursorKey ??= cursorKey(cursorSecret())));
  #cursorKey: Promise<CryptoKey> | undefined;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Tasks held (expired ones included until they are swept). */
  get size(): number {
    return this.#slots.size;
  }

  create(record: TaskRecord, options: TaskCreateOptions = {}): Promise<void> {
    this.#sweep();
    if (this.#live(record.taskId)) {
      return Promise.reject(new Error(`A task with the id ${record.taskId} already exists`));
    }
    const { limit } = options;
    const running = limit && this.#runningOf(limit.key);
    if (limit && running && running.size >= limit.max) return Promise.reject(new TaskLimitReached(limit.max));
    if (limit?.maxKept !== undefined && limit.maxKept > 0) this.#keepEnded(limit.key, limit.maxKept);
    const created = Date.parse(record.createdAt);
    const expiresAt = record.ttlMs === null ? Infinity : created + record.ttlMs;
    const seq = ++this.#seq;
    this.#slots.set(record.taskId, { record: structuredClone(record), expiresAt, seq });
    if (record.owner !== undefined) {
      let owned = this.#owned.get(record.owner);
      if (!owned) this.#owned.set(record.owner, (owned = []));
      owned.push([seq, record.taskId]);
    }
    if (limit) {
      if (running) running.add(record.taskId);
      else this.#running.set(limit.key, new Set([record.taskId]));
    }
    return Promise.resolve();
  }

  /**
   * The tasks of a `limit` key that run still, once those that ended or expired are dropped (the ended ones
   * join the key's ended tasks).
   */
  #runningOf(key: string): Set<string> | undefined {
    const running = this.#running.get(key);
    if (!running) return undefined;
    for (const taskId of running) {
      const slot = this.#live(taskId);
      if (slot && !isTerminalStatus(slot.record.status)) continue;
      running.delete(taskId);
      if (slot) this.#endedOf(key, [slot.seq, taskId]);
    }
    if (running.size > 0) return running;
    this.#running.delete(key);
    return undefined;
  }

  /** `entry` joins the ended tasks of `key`, in creation order (tasks end in about that order: from the end). */
  #endedOf(key: string, entry: [seq: number, taskId: string]): void {
    let ended = this.#ended.get(key);
    if (!ended) this.#ended.set(key, (ended = []));
    let at = ended.length;
    while (at > 0 && ended[at - 1]![0] > entry[0]) at--;
    ended.splice(at, 0, entry);
  }

  /** Drops the oldest ended tasks of `key` past `max` (those gone already count for nothing). */
  #keepEnded(key: string, max: number): void {
    const ended = this.#ended.get(key);
    if (!ended || ended.length <= max) return;
    const live = ended.filter((entry) => this.#entry(entry) !== undefined);
    for (const [, taskId] of live.splice(0, Math.max(0, live.length - max))) this.#slots.delete(taskId);
    if (live.length === 0) this.#ended.delete(key);
    else this.#ended.set(key, live);
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    const slot = this.#live(taskId);
    return Promise.resolve(slot && structuredClone(slot.record));
  }

  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const slot = this.#live(taskId);
    if (!slot) return Promise.resolve(undefined);
    if (!isTerminalStatus(slot.record.status) && !isStale(slot.record, change)) {
      const record: Record<string, unknown> = { ...slot.record };
      for (const [key, value] of Object.entries(change)) {
        if (value === undefined) delete record[key];
        else record[key] = structuredClone(value);
      }
      slot.record = record as unknown as TaskRecord;
    }
    return Promise.resolve(structuredClone(slot.record));
  }

  delete(taskId: string): Promise<void> {
    this.#slots.delete(taskId);
    return Promise.resolve();
  }

  answerInput(taskId: string, responses: JsonObject): Promise<string[]> {
    const slot = this.#asking(taskId);
    if (!slot) return Promise.resolve([]);
    const answers = (slot.answers ??= new Map<string, JsonObject>());
    const kept = Object.keys(responses).filter(
      (key) => Object.hasOwn(slot.record.inputRequests!, key) && !answers.has(key),
    );
    for (const key of kept) answers.set(key, structuredClone(responses[key] as JsonObject));
    return Promise.resolve(kept);
  }

  takeAnswers(taskId: string): Promise<JsonObject> {
    const slot = this.#live(taskId);
    const answers: JsonObject = {};
    if (!slot?.answers) return Promise.resolve(answers);
    const pending = this.#asking(taskId)?.record.inputRequests;
    for (const [key, answer] of slot.answers) {
      if (pending && Object.hasOwn(pending, key)) answers[key] = structuredClone(answer);
      else {
        slot.answers.delete(key);
        slot.claims?.delete(key);
      }
    }
    return Promise.resolve(answers);
  }

  claimInput(taskId: string, keys: readonly string[], claimant: string, ms: number): Promise<string[]> {
    const slot = this.#asking(taskId);
    if (!slot) return Promise.resolve([]);
    const now = this.#now();
    const claims = (slot.claims ??= new Map<string, { by: string; until: number }>());
    const held = keys.filter((key) => {
      if (!Object.hasOwn(slot.record.inputRequests!, key) || slot.answers?.has(key)) return false;
      const claim = claims.get(key);
      return claim === undefined || claim.by === claimant || claim.until <= now;
    });
    for (const key of held) claims.set(key, { by: claimant, until: now + ms });
    return Promise.resolve(held);
  }

  /** The live slot of a task that has not ended and has questions pending. */
  #asking(taskId: string): Slot | undefined {
    const slot = this.#live(taskId);
    const ok = slot && !isTerminalStatus(slot.record.status) && slot.record.inputRequests !== undefined;
    return ok ? slot : undefined;
  }

  async list(owner: string, page: TaskPageRequest): Promise<TaskPage> {
    const after = page.cursor === undefined ? 0 : cursorSeq(await this.#cursors.open(owner, page.cursor));
    const owned = this.#owned.get(owner) ?? [];
    // The first entry after the cursor (the entries are in creation order): a binary search.
    let low = 0;
    let high = owned.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (owned[mid]![0] <= after) low = mid + 1;
      else high = mid;
    }
    const records: TaskRecord[] = [];
    let i = low;
    for (; i < owned.length && records.length < page.limit; i++) {
      const slot = this.#entry(owned[i]!);
      if (slot) records.push(structuredClone(slot.record));
    }
    // Another page only when a live task remains after this one (the next live entry at most is read).
    while (i < owned.length && !this.#entry(owned[i]!)) i++;
    if (i === owned.length || records.length === 0) return { records };
    const last = owned[i - 1]![0];
    return { records, nextCursor: await this.#cursors.issue(owner, last.toString(36)) };
  }

  /** The live slot an owner's entry names (not a later task that reused the id). */
  #entry([seq, taskId]: [number, string]): Slot | undefined {
    const slot = this.#live(taskId);
    return slot?.seq === seq ? slot : undefined;
  }

  #live(taskId: string): Slot | undefined {
    const slot = this.#slots.get(taskId);
    if (slot && this.#now() >= slot.expiresAt) {
      this.#slots.delete(taskId);
      return undefined;
    }
    return slot;
  }

  #sweep(): void {
    const now = this.#now();
    if (now - this.#sweptAt < SWEEP_INTERVAL_MS) return;
    this.#sweptAt = now;
    for (const [taskId, slot] of this.#slots) if (now >= slot.expiresAt) this.#slots.delete(taskId);
    for (const [owner, owned] of this.#owned) {
      const kept = owned.filter(([seq, taskId]) => this.#slots.get(taskId)?.seq === seq);
      if (kept.length === 0) this.#owned.delete(owner);
      else if (kept.length < owned.length) this.#owned.set(owner, kept);
    }
    for (const key of this.#running.keys()) this.#runningOf(key);
    for (const [key, ended] of this.#ended) {
      const kept = ended.filter((entry) => this.#entry(entry) !== undefined);
      if (kept.length === 0) this.#ended.delete(key);
      else if (kept.length < ended.length) this.#ended.set(key, kept);
    }
  }
}

/** The creation number a memory-store cursor's position names (one this store issued). */
function cursorSeq(position: string): number {
  return parseInt(position, 36);
}
