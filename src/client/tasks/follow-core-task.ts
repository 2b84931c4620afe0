/**
 * Following a 2025-11-25 task (SEP-1686), client side: `tasks/get` every `pollInterval` (sooner when a
 * `notifications/tasks/status` for it arrives); at `input_required` or at the end, one `tasks/result`, which
 * blocks until the task ends and meanwhile carries the server's questions (answered by the client's handlers
 * like any request); it answers what the call would have (a result, or its JSON-RPC error).
 * @module
 */
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import { RELATED_TASK_META, isTerminalStatus, type TaskInfo } from '../../protocol/types/tasks.js';
import type { ExchangeOptions } from '../exchange-options.js';
import { cancelledError, perRequest, taskOf, type TaskHost } from './task-host.js';
import { pause, pollDelay, type WakeUp } from './task-poll-pause.js';

/** A 2025-11-25 `tasks/result` payload without the related-task `_meta` the server adds. */
function withoutRelatedTask(result: JsonObject): JsonObject {
  if (!isJsonObject(result._meta) || !(RELATED_TASK_META in result._meta)) return result;
  const { [RELATED_TASK_META]: _related, ...meta } = result._meta;
  const { _meta: _dropped, ...rest } = result;
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}

/** Follows a 2025-11-25 task (see follow-task.ts) to its end; resolves with the call's raw result. */
export async function followCoreTask(
  host: TaskHost,
  first: TaskInfo,
  report: (task: TaskInfo) => void,
  options: ExchangeOptions,
): Promise<JsonObject> {
  const { taskId } = first;
  const { signal } = options;
  let status = first;
  const wakeUp: WakeUp = {};
  const seen = (task: TaskInfo) => {
    status = task;
    report(task);
    wakeUp.wake?.();
  };
  const unwatch = host.watch(taskId, seen);
  let payload: Promise<JsonObject> | undefined;
  let settled = false;
  try {
    report(first);
    for (;;) {
      if (status.status === 'cancelled') throw cancelledError(taskId);
      if (payload === undefined && (status.status === 'input_required' || isTerminalStatus(status.status))) {
        // Blocks until the task ends, the server's questions arriving meanwhile on its stream: no timeout
        // while it may ask. For a task that has ended, the answer is due at once: the request's timeout (a
        // server that says "completed" and never answers does not hold the call for ever).
        const ended = isTerminalStatus(status.status);
        payload = host.request(
          'tasks/result',
          { taskId },
          {
            ...perRequest(options),
            ...(!ended && { timeout: Infinity }),
            ...(signal ? { signal } : {}),
          },
        );
        payload.then(
          () => ((settled = true), wakeUp.wake?.()),
          () => ((settled = true), wakeUp.wake?.()),
        );
      }
      if (payload && (settled || isTerminalStatus(status.status))) {
        const result = withoutRelatedTask(await payload);
        // tasks/result answers once the task has ended: its final status is reported even when no poll or
        // notification saw it (the answer can come first), so a status stream always ends on it.
        if (!isTerminalStatus(status.status)) {
          try {
            seen(taskOf('tasks/get', await host.request('tasks/get', { taskId }, perRequest(options))));
          } catch {
            // The result is what was asked for; a task gone (or a bad status) does not take it away.
          }
        }
        return result;
      }
      await pause(pollDelay(status.pollIntervalMs), signal, wakeUp);
      if (settled) continue;
      seen(taskOf('tasks/get', await host.request('tasks/get', { taskId }, perRequest(options))));
    }
  } finally {
    unwatch();
  }
}
