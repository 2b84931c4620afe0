/**
 * Following a 2026-07-28 task (the tasks extension), client side: the task's `notifications/tasks` asked for
 * on the `subscriptions/listen` stream, and `tasks/get` every `pollIntervalMs` unless a notification told the
 * news first; its `inputRequests` answered through the handlers and sent back with `tasks/update`; the result
 * (or error) comes inline, in `tasks/get` or the notification.
 * @module
 */
import { followSignal } from '../../protocol/engine/cancellation.js';
import { LocalErrorCode, ProtocolError } from '../../protocol/errors.js';
import { isJsonObject, wireObject, type JsonObject } from '../../protocol/jsonrpc.js';
import { isTerminalStatus, type TaskInfo } from '../../protocol/types/tasks.js';
import { ClientError } from '../client-error.js';
import { withOwnHandlers } from '../client-handlers.js';
import type { ExchangeOptions } from '../exchange-options.js';
import { answerInStatelessEra } from '../stateless/exchange-with-input.js';
import { cancelledError, perRequest, taskOf, taskParams, type TaskHost } from './task-host.js';
import { pause, pollDelay, type WakeUp } from './task-poll-pause.js';

/** Follows a 2026-07-28 task (see follow-task.ts) to its end; resolves with the call's raw result. */
export async function followExtensionTask(
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
  const wakeUp: WakeUp = {};
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
      const polled = await host.request('tasks/get', taskParams('extension', taskId), perRequest(options));
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
      perRequest(options),
    );
  } finally {
    unfollow?.();
  }
}
