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
export function isStale(record: TaskRecord, change: TaskChange): boolean {
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
