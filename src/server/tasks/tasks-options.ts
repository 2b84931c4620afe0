/**
 * What a server's `tasks` option sets: where task records live, how long a task is kept, and the polling
 * interval suggested to clients; their defaults, and the check that refuses a value out of range.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
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
}

export const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1000;

function positiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** The lifetime and polling interval the options set (else the defaults); a ServerError for a bad one. */
export function taskTimings(options: TasksOptions): { ttlMs: number | null; pollIntervalMs: number } {
  const ttlMs = options.ttlMs === undefined ? DEFAULT_TASK_TTL_MS : options.ttlMs;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_TASK_POLL_INTERVAL_MS;
  if ((ttlMs !== null && !positiveInteger(ttlMs)) || !positiveInteger(pollIntervalMs)) {
    throw new ServerError(
      LocalErrorCode.InvalidDefinition,
      'tasks: ttlMs must be a positive integer or null, pollIntervalMs a positive integer',
    );
  }
  return { ttlMs, pollIntervalMs };
}
