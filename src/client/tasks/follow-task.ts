/**
 * Following a task from its creation to its result, in either form, client side.
 *
 * - 2025-11-25 (SEP-1686): polled with `tasks/get`, its result from one `tasks/result`, which carries the
 *   server's questions meanwhile (follow-core-task.ts).
 * - 2026-07-28 (the tasks extension): told by `notifications/tasks` on the listen stream or polled, its
 *   `inputRequests` answered with `tasks/update`, its result inline (follow-extension-task.ts).
 *
 * Either way a cancelled task rejects with ClientError REQUEST_CANCELLED, and so does aborting the
 * caller's signal (after asking the server to cancel the task, where it declared `tasks/cancel`).
 * @module
 */
import { mergedSignal } from '../../protocol/engine/merged-signal.js';
import { LocalErrorCode, ToolwireError } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { TaskInfo } from '../../protocol/types/tasks.js';
import { ClientError } from '../client-error.js';
import type { ExchangeOptions } from '../exchange-options.js';
import { followCoreTask } from './follow-core-task.js';
import { followExtensionTask } from './follow-extension-task.js';
import { perRequest, taskParams, type TaskForm, type TaskHost } from './task-host.js';

/**
 * Follows the task to its end; resolves with the call's raw result. `report` sees each status. Aborting
 * `options.signal` cancels the task (best effort, where the server declared `tasks/cancel`) and rejects
 * with REQUEST_CANCELLED. `wire`: the
 * message `first` was read from (a 2026-07-28 `tasks/get` carries the result inline).
 */
export async function followTask(
  host: TaskHost,
  form: TaskForm,
  first: TaskInfo,
  report: (task: TaskInfo) => void,
  given: ExchangeOptions = {},
  wire?: JsonObject,
): Promise<JsonObject> {
  // One signal for the whole follow: the caller's signal and its cancellation (see `RequestOptions`), and the
  // connection's close (nothing can be asked of the server after it: the follow ends as its requests do).
  const { cancellation: _followed, ...rest } = given;
  const merged = mergedSignal([given.signal, given.cancellation, host.closed]);
  const signal = merged.signal;
  const options: ExchangeOptions = { ...rest, signal };
  const taskId = first.taskId;
  try {
    return form === 'core'
      ? await followCoreTask(host, first, report, options)
      : await followExtensionTask(host, first, report, options, wire);
  } catch (error) {
    if (host.closed?.aborted) throw host.closed.reason;
    if (!signal.aborted) {
      // The follow failed on its own (a timeout, an answer that is no task): nobody will take the task's
      // result now, so it is cancelled, best effort, whatever its status said (a server that cannot answer
      // for its task may still be running it). A task the server cancelled is left as it is.
      if (error instanceof ToolwireError && error.code !== LocalErrorCode.RequestCancelled)
        await cancelQuietly(host, form, taskId, options);
      throw error;
    }
    await cancelQuietly(host, form, taskId, options);
    throw new ClientError(LocalErrorCode.RequestCancelled, `The call of task ${taskId} was aborted`, {
      cause: signal.reason,
      details: { taskId },
    });
  } finally {
    merged.dispose();
  }
}

/**
 * Asks the server to cancel a task nobody will take the result of, best effort: not at all from a
 * 2025-11-25 server that did not declare `tasks.cancel` (the spec sends no undeclared method).
 */
async function cancelQuietly(
  host: TaskHost,
  form: TaskForm,
  taskId: string,
  options: ExchangeOptions,
): Promise<void> {
  if (!host.cancels(form)) return;
  await host.request('tasks/cancel', taskParams(form, taskId), perRequest(options)).catch(() => undefined);
}
