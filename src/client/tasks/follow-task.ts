/**
 * Following a task from its creation to its result, in either form, client side.
 *
 * - 2025-11-25 (SEP-1686): `tasks/get` every `pollInterval` (sooner when a `notifications/tasks/status`
 *   for it arrives); at `input_required` or at the end, one `tasks/result`, which blocks until the task
 *   ends and meanwhile carries the server's questions (answered by the client's handlers like any
 *   request); it answers what the call would have (a result, or its JSON-RPC error).
 * - 2026-07-28 (the tasks extension): the task's `notifications/tasks` asked for on the
 *   `subscriptions/listen` stream, and `tasks/get` every `pollIntervalMs` unless a notification told the
 *   news first; its `inputRequests` answered through the handlers and sent back with `tasks/update`; the
 *   result (or error) comes inline, in `tasks/get` or the notification.
 *
 * Either way a cancelled task rejects with ClientError REQUEST_CANCELLED, and so does aborting the
 * caller's signal (after asking the server to cancel the task, where it declared `tasks/cancel`).
 * @module
 */
import { followSignal } from '../../protocol/engine/cancellation.js';
import { mergedSignal } from '../../protocol/engine/merged-signal.js';
import { LocalErrorCode, ProtocolError, ToolwireError } from '../../protocol/errors.js';
import { isJsonObject, wireObject, type JsonObject } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/types/stateless.js';
import {
  RELATED_TASK_META,
  TASKS_EXTENSION,
  isTerminalStatus,
  readTaskInfo,
  type TaskInfo,
} from '../../protocol/types/tasks.js';
import { ClientError } from '../client-error.js';
import { withOwnHandlers, type ClientHandlers } from '../client-handlers.js';
import type { ExchangeOptions } from '../exchange-options.js';
import { answerInStatelessEra } from '../stateless/exchange-with-input.js';

/** The polling interval when the server suggests none, in ms. */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1000;

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
function each(options: ExchangeOptions): ExchangeOptions {
  const { timeout, handlers } = options;
  return { ...(timeout !== undefined && { timeout }), ...(handlers && { handlers }) };
}

/** The shortest and the longest pause between two `tasks/get` of a task, whatever the server asks. */
export const MIN_TASK_POLL_INTERVAL_MS = 50;
export const MAX_TASK_POLL_INTERVAL_MS = 5 * 60_000;

/**
 * The pause before the next `tasks/get`: the server's `pollInterval`, kept between the bounds (a server
 * asking for 0 ms made the client poll as fast as answers came; one asking for more than a timer holds,
 * every millisecond); the default when it gives none or a number that is none.
 */
function pollDelay(asked: number | undefined): number {
  if (asked === undefined || !Number.isFinite(asked)) return DEFAULT_TASK_POLL_INTERVAL_MS;
  return Math.min(Math.max(asked, MIN_TASK_POLL_INTERVAL_MS), MAX_TASK_POLL_INTERVAL_MS);
}

/** Resolves after `ms`, or at once when `wake` is called; rejects when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined, wakeUp: { wake?: () => void }): Promise<void> {
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

/** A 2025-11-25 `tasks/result` payload without the related-task `_meta` the server adds. */
function withoutRelatedTask(result: JsonObject): JsonObject {
  if (!isJsonObject(result._meta) || !(RELATED_TASK_META in result._meta)) return result;
  const { [RELATED_TASK_META]: _related, ...meta } = result._meta;
  const { _meta: _dropped, ...rest } = result;
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}

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
      ? await followCore(host, first, report, options)
      : await followExtension(host, first, report, options, wire);
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
  await host.request('tasks/cancel', taskParams(form, taskId), each(options)).catch(() => undefined);
}

async function followCore(
  host: TaskHost,
  first: TaskInfo,
  report: (task: TaskInfo) => void,
  options: ExchangeOptions,
): Promise<JsonObject> {
  const { taskId } = first;
  const { signal } = options;
  let status = first;
  const wakeUp: { wake?: () => void } = {};
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
            ...each(options),
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
            seen(taskOf('tasks/get', await host.request('tasks/get', { taskId }, each(options))));
          } catch {
            // The result is what was asked for; a task gone (or a bad status) does not take it away.
          }
        }
        return result;
      }
      await pause(pollDelay(status.pollIntervalMs), signal, wakeUp);
      if (settled) continue;
      seen(taskOf('tasks/get', await host.request('tasks/get', { taskId }, each(options))));
    }
  } finally {
    unwatch();
  }
}

async function followExtension(
  host: TaskHost,
  first: TaskInfo,
  report: (task: TaskInfo) => void,
  options: ExchangeOptions,
  wire: JsonObject = wireObject(first),
): Promise<JsonObject> {
  const { taskId } = first;
  const { signal } = options;
  const answered = new Set<string>();
  let detailed = wire;
  let status = first;
  /** A notification told the latest (no `tasks/get` needed after the pause). */
  let told = false;
  /**
   * The listen stream names the task now: what it did before (a question asked at once) was notified to
   * no stream, so one `tasks/get` is due now rather than after the pause.
   */
  let listening = false;
  const wakeUp: { wake?: () => void } = {};
  const unwatch = host.watch(taskId, (task, notified) => {
    if (isTerminalStatus(status.status)) return;
    detailed = notified;
    status = task;
    told = true;
    wakeUp.wake?.();
  });
  const unlisten = host.listen(taskId, () => {
    listening = true;
    wakeUp.wake?.();
  });
  try {
    return await followDetailed();
  } finally {
    unwatch();
    unlisten();
  }

  async function followDetailed(): Promise<JsonObject> {
    for (;;) {
      told = false;
      report(status);
      switch (status.status) {
        case 'completed': {
          if (isJsonObject(detailed.result)) return detailed.result;
          throw new ClientError(LocalErrorCode.InvalidResult, `Task ${taskId} completed without a result`, {
            details: { task: detailed },
          });
        }
        case 'failed': {
          const error = detailed.error;
          if (isJsonObject(error) && typeof error.code === 'number' && typeof error.message === 'string') {
            throw new ProtocolError(error.code, error.message, error.data);
          }
          throw new ClientError(LocalErrorCode.InvalidResult, `Task ${taskId} failed without an error`, {
            details: { task: detailed },
          });
        }
        case 'cancelled':
          throw cancelledError(taskId);
        case 'input_required':
          await answerQuestions(host, taskId, detailed.inputRequests, answered, options);
          break;
        case 'working':
          break;
      }
      if (!told && !listening) await pause(pollDelay(status.pollIntervalMs), signal, wakeUp);
      if (told) continue;
      listening = false;
      const polled = await host.request('tasks/get', taskParams('extension', taskId), each(options));
      if (told) continue; // a notification arrived meanwhile: it is at least as new
      detailed = polled;
      status = taskOf('tasks/get', detailed);
    }
  }
}

/**
 * Answers the questions not answered yet through the handlers, and sends the answers (`tasks/update`). The
 * follow's signal aborting (the caller's, or the connection's close) ends it at once: the handlers see their
 * signal abort, and what they answer after is dropped.
 */
async function answerQuestions(
  host: TaskHost,
  taskId: string,
  inputRequests: unknown,
  answered: Set<string>,
  options: ExchangeOptions,
): Promise<void> {
  if (!isJsonObject(inputRequests)) return;
  const controller = new AbortController();
  const { signal } = options;
  const unfollow = signal && followSignal(signal, (reason) => controller.abort(reason));
  if (signal?.aborted) controller.abort(signal.reason);
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(controller.signal.reason as Error);
    if (controller.signal.aborted) fail();
    else controller.signal.addEventListener('abort', fail, { once: true });
  });
  try {
    const answer = async (): Promise<JsonObject> => {
      const responses: JsonObject = {};
      for (const [key, request] of Object.entries(inputRequests)) {
        if (answered.has(key) || !isJsonObject(request) || typeof request.method !== 'string') continue;
        const params = isJsonObject(request.params) ? request.params : {};
        responses[key] = await answerInStatelessEra(
          request.method,
          params,
          withOwnHandlers(host.handlers, options.handlers),
          { signal: controller.signal },
        );
        answered.add(key);
      }
      return responses;
    };
    const responses = await Promise.race([answer(), aborted]);
    if (Object.keys(responses).length === 0) return;
    await host.request(
      'tasks/update',
      taskParams('extension', taskId, { inputResponses: responses }),
      each(options),
    );
  } finally {
    unfollow?.();
  }
}
