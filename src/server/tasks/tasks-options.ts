/**
 * What a server's `tasks` option sets: where task records live, how long a task is kept, the polling
 * interval suggested to clients and how many tasks a caller may run at once; their defaults, and the check
 * that refuses a value out of range.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import { DEFAULT_TASK_POLL_INTERVAL_MS } from '../../protocol/types/tasks.js';
import type { TaskStore } from '../../stores/task-store.js';
import { ServerError } from '../server-error.js';

export interface TasksOptions {
  /** Where task records live (default: a `MemoryTaskStore`, this process only). */
  store?: TaskStore;
  /**
   * How long a task is kept, from its creation, in ms (default 3,600,000: one hour); null keeps it until
   * the store drops it. A 2025-11-25 client may ask for less (`params.task.ttl`), never more. A handler
   * still running when its task expires is aborted.
   */
  ttlMs?: number | null;
  /** The polling interval suggested to clients, in ms (default 1,000). */
  pollIntervalMs?: number;
  /**
   * How many tasks one caller may have running (not ended) at once, whichever instance sharing the store
   * runs them (default 100). A caller is its principal; an anonymous one, in 2025-11-25, its session (the
   * owner `tasks/list` uses), in 2026-07-28, every anonymous caller together (nothing tells them apart: a
   * server that takes stateless-era calls from several parties should authenticate them, `auth` on
   * `serveHttp`, else one can take every place). Past it a task-augmented `tools/call` gets -31429
   * (`data: { retryAfterMs, limit: 'tasks' }`) and nothing runs.
   */
  maxRunning?: number;
  /**
   * How many ended tasks (completed, failed, cancelled) of one caller (as `maxRunning` counts callers) are
   * kept at most, whichever instance ended them (default 1,000): as the caller starts a task, its oldest
   * ended ones past this go before their `ttlMs`, and a `tasks/get` of one is answered as for an expired
   * task. So a caller running short tasks in a loop holds at most `maxKept` + `maxRunning` records.
   */
  maxKept?: number;
}

export const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;
/**
 * A caller's running tasks at most: far more than a client following its tasks needs at once, and each
 * one's handler, record and (on Redis) place in the count are small next to what 100 cost a server.
 */
export const DEFAULT_MAX_RUNNING_TASKS = 100;
/**
 * A caller's ended tasks kept at most: ten rounds of `maxRunning` tasks whose results were not read yet (a
 * client reads a result as its task ends, one poll interval later), and what bounds a caller that starts
 * tasks in a loop to 1,100 records rather than one per task of the last hour.
 */
export const DEFAULT_MAX_KEPT_TASKS = 1000;

function positiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** The lifetime and polling interval the options set (else the defaults); a ServerError for a bad one. */
export function taskTimings(options: TasksOptions): {
  ttlMs: number | null;
  pollIntervalMs: number;
  maxRunning: number;
  maxKept: number;
} {
  const ttlMs = options.ttlMs === undefined ? DEFAULT_TASK_TTL_MS : options.ttlMs;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_TASK_POLL_INTERVAL_MS;
  const maxRunning = options.maxRunning ?? DEFAULT_MAX_RUNNING_TASKS;
  const maxKept = options.maxKept ?? DEFAULT_MAX_KEPT_TASKS;
  if (
    (ttlMs !== null && !positiveInteger(ttlMs)) ||
    !positiveInteger(pollIntervalMs) ||
    !positiveInteger(maxRunning) ||
    !positiveInteger(maxKept)
  ) {
    throw new ServerError(
      LocalErrorCode.InvalidDefinition,
      'tasks: ttlMs must be a positive integer or null, pollIntervalMs, maxRunning and maxKept positive integers',
    );
  }
  return { ttlMs, pollIntervalMs, maxRunning, maxKept };
}
