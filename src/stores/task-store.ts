/**
 * Task records of the tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): what `tasks/get`
 * reports about a tool call that runs in the background. The running handler stays in the process that
 * started it; the record is what a shared store can hold for several processes. A record is kept until
 * its `ttlMs` (counted from `createdAt`) has elapsed, and a terminal one never changes again.
 * @module
 */
import type { ErrorObject } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** `completed`, `failed` and `cancelled`: the task is over and its record never changes again. */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** One question a task waits on (an entry of `inputRequests`: `elicitation/create`, …). */
export interface TaskInputRequest {
  method: string;
  params?: JsonObject;
}

export interface TaskRecord {
  /** Unguessable (cryptographically random): without authorization it is all that guards the task. */
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** How long the record is kept, from `createdAt`, in ms; null: until the store is cleared. */
  ttlMs: number | null;
  /** The polling interval suggested to the client, in ms. */
  pollIntervalMs?: number;
  /** The request the task runs (`tools/call`). */
  method: string;
  /**
   * The authenticated caller that created the task, once requests carry one; a task is then served to
   * that principal only. Undefined: bound to nothing but its id.
   */
  principal?: string;
  /** While `input_required`: the questions not answered yet, by key. */
  inputRequests?: Record<string, TaskInputRequest>;
  /** When `completed`: the request's result (a tool result with `isError: true` too). */
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

export interface TaskStore {
  /** Stores a new task. Resolves once a `get` for its id, from any process sharing the store, finds it. */
  create(record: TaskRecord): Promise<void>;
  /** The task, or undefined when there is none of that id (never created, or expired). */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Applies `change` unless the task is terminal (fields set to undefined are removed). Resolves with
   * the record as stored afterwards (unchanged when it was terminal), or undefined when there is no such
   * task.
   */
  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  /** Forgets the task. */
  delete(taskId: string): Promise<void>;
}

export interface MemoryTaskStoreOptions {
  /** The clock, in ms since the epoch (tests). */
  now?: () => number;
}

interface Slot {
  record: TaskRecord;
  /** When the record expires (ms since the epoch); Infinity: never. */
  expiresAt: number;
}

/** Expired records are dropped when they are next read, and by a sweep at most once a second. */
const SWEEP_INTERVAL_MS = 1000;

/** The in-memory default: the records of this process, lost when it exits. */
export class MemoryTaskStore implements TaskStore {
  readonly #slots = new Map<string, Slot>();
  readonly #now: () => number;
  #sweptAt = 0;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Tasks held (expired ones included until they are swept). */
  get size(): number {
    return this.#slots.size;
  }

  create(record: TaskRecord): Promise<void> {
    this.#sweep();
    if (this.#live(record.taskId)) {
      return Promise.reject(new Error(`A task with the id ${record.taskId} already exists`));
    }
    const created = Date.parse(record.createdAt);
    const expiresAt = record.ttlMs === null ? Infinity : created + record.ttlMs;
    this.#slots.set(record.taskId, { record: structuredClone(record), expiresAt });
    return Promise.resolve();
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    const slot = this.#live(taskId);
    return Promise.resolve(slot && structuredClone(slot.record));
  }

  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const slot = this.#live(taskId);
    if (!slot) return Promise.resolve(undefined);
    if (!isTerminalStatus(slot.record.status)) {
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
  }
}
