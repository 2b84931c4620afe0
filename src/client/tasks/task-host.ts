/**
 * What following a task needs of its client (`TaskHost`), in which form the task is spoken of (`TaskForm`), and
 * the pieces both forms' follows share: a `tasks/*` request's params, a task read from the wire, the error of a
 * cancelled task, and each request's options.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/types/stateless.js';
import { TASKS_EXTENSION, readTaskInfo, type TaskInfo } from '../../protocol/types/tasks.js';
import { ClientError } from '../client-error.js';
import type { ClientHandlers } from '../client-handlers.js';
import type { ExchangeOptions } from '../exchange-options.js';

export interface TaskHost {
  /** One request through the client's links, in the era spoken. */
  request(method: string, params: JsonObject, options?: ExchangeOptions): Promise<JsonObject>;
  /** What answers a 2026-07-28 task's `inputRequests`. */
  readonly handlers: ClientHandlers;
  /**
   * Calls `listener` with each `notifications/tasks/status` (2025-11-25) or `notifications/tasks`
   * (2026-07-28, `wire` the detailed task) about `taskId`. Returns an unsubscribe.
   */
  watch(taskId: string, listener: (task: TaskInfo, wire: JsonObject) => void): () => void;
  /**
   * 2026-07-28: has the listen stream carry the task's notifications, `listening` called once the server
   * acknowledged a stream naming the task. Returns the undo.
   */
  listen(taskId: string, listening?: () => void): () => void;
  /** Whether `tasks/cancel` may be sent in the form (2025-11-25: the server declared `tasks.cancel`). */
  cancels(form: TaskForm): boolean;
  /**
   * Aborts when the connection closes, with the error its requests in flight get: the follow ends at once
   * with it, in a pause between polls or while the handlers answer the task's questions.
   */
  readonly closed?: AbortSignal;
}

export type TaskForm = 'core' | 'extension';

/** The `_meta` a 2026-07-28 request carries to declare the tasks extension (merged into the client's). */
export const EXTENSION_META: JsonObject = {
  [META.clientCapabilities]: { extensions: { [TASKS_EXTENSION]: {} } },
};

/** Params of a `tasks/*` request of the form. */
export function taskParams(form: TaskForm, taskId: string, extra: JsonObject = {}): JsonObject {
  return form === 'extension' ? { taskId, ...extra, _meta: EXTENSION_META } : { taskId, ...extra };
}

/** A task from the wire, or ClientError INVALID_RESULT. */
export function taskOf(method: string, value: unknown): TaskInfo {
  const task = readTaskInfo(value);
  if (!task) {
    throw new ClientError(LocalErrorCode.InvalidResult, `${method} returned no valid task`, {
      details: { result: value },
    });
  }
  return task;
}

export function cancelledError(taskId: string): ClientError {
  return new ClientError(LocalErrorCode.RequestCancelled, `Task ${taskId} was cancelled`, {
    details: { taskId },
  });
}

/**
 * Per-request options of the follow: the caller's timeout per request, never the caller's signal, and
 * the call's own handlers (the task's questions are the call's).
 */
export function perRequest(options: ExchangeOptions): ExchangeOptions {
  const { timeout, handlers } = options;
  return { ...(timeout !== undefined && { timeout }), ...(handlers && { handlers }) };
}
