/**
 * The pause between two `tasks/get` of a task a client follows, in either form: as long as the server asks,
 * within bounds, and cut short when news of the task arrives.
 * @module
 */
import { followSignal } from '../../protocol/engine/cancellation.js';
import { DEFAULT_TASK_POLL_INTERVAL_MS } from '../../protocol/types/tasks.js';

/** The shortest and the longest pause between two `tasks/get` of a task, whatever the server asks. */
export const MIN_TASK_POLL_INTERVAL_MS = 50;
export const MAX_TASK_POLL_INTERVAL_MS = 5 * 60_000;

/** Where a pause in progress can be woken: `wake` is set while one waits. */
export interface WakeUp {
  wake?: () => void;
}

/**
 * The pause before the next `tasks/get`: the server's `pollInterval`, kept between the bounds (a server
 * asking for 0 ms made the client poll as fast as answers came; one asking for more than a timer holds,
 * every millisecond); the default when it gives none or a number that is none.
 */
export function pollDelay(asked: number | undefined): number {
  if (asked === undefined || !Number.isFinite(asked)) return DEFAULT_TASK_POLL_INTERVAL_MS;
  return Math.min(Math.max(asked, MIN_TASK_POLL_INTERVAL_MS), MAX_TASK_POLL_INTERVAL_MS);
}

/** Resolves after `ms`, or at once when `wake` is called; rejects when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal | undefined, wakeUp: WakeUp): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let unfollow: (() => void) | undefined;
    const done = () => {
      clearTimeout(timer);
      unfollow?.();
      wakeUp.wake = undefined;
      resolve();
    };
    const onAbort = (reason: unknown) => {
      clearTimeout(timer);
      wakeUp.wake = undefined;
      reject(reason as Error);
    };
    const timer = setTimeout(done, ms);
    wakeUp.wake = done;
    // The caller's signal may be shared by many calls: followed through one listener (see followSignal).
    if (signal?.aborted) onAbort(signal.reason);
    else if (signal) unfollow = followSignal(signal, onAbort);
  });
}
