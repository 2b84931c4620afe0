/**
 * The in-memory task store: the records of this process, lost when it exits (see task-store.ts for what a
 * task store keeps and how).
 * @module
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import { TaskCursors, cursorKey, cursorSecret } from './task-cursors.js';
import {
  TaskLimitReached,
  isStale,
  isTerminalStatus,
  type TaskChange,
  type TaskCreateOptions,
  type TaskPage,
  type TaskPageRequest,
  type TaskRecord,
  type TaskStore,
} from './task-store.js';

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
