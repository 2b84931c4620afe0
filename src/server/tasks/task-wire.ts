/**
 * The wire of the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, 2026-07-28 only): its
 * identifier, how a client declares it (per request, in `clientCapabilities.extensions`), the -32021 a
 * client that did not declare it gets, and the two shapes a task takes on the wire: the flat
 * `CreateTaskResult` that answers `tools/call`, and the `DetailedTask` of `tasks/get`.
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import type { ClientCapabilities } from '../../protocol/types/lifecycle.js';
import { TASKS_EXTENSION } from '../../protocol/types/tasks.js';
import type { TaskRecord } from '../../stores/task-store.js';

export { TASKS_EXTENSION } from '../../protocol/types/tasks.js';

/** Whether the request's client capabilities declare the tasks extension. */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  const extensions = capabilities.extensions;
  return isJsonObject(extensions) && isJsonObject(extensions[TASKS_EXTENSION]);
}

/** -32021 naming the extension, for a request that needs it from a client that did not declare it. */
export function missingTasksExtension(what: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/** -32602 for a task id the store does not know (never issued, or expired). */
export function unknownTask(taskId: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `Invalid params: no task with the id ${echoedName(taskId)}`,
  );
}

/** The `taskId` of `tasks/get`, `tasks/update` and `tasks/cancel` params (-32602 when it is missing). */
export function taskIdOf(params: JsonObject): string {
  const taskId = params.taskId;
  if (typeof taskId !== 'string' || taskId.length === 0) {
    throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: "taskId" must be a non-empty string');
  }
  return taskId;
}

/** The fields every task has on the wire (the `Task` base shape). */
function taskFields(record: TaskRecord): JsonObject {
  const out: JsonObject = { taskId: record.taskId, status: record.status };
  if (record.statusMessage !== undefined) out.statusMessage = record.statusMessage;
  out.createdAt = record.createdAt;
  out.lastUpdatedAt = record.lastUpdatedAt;
  out.ttlMs = record.ttlMs;
  if (record.pollIntervalMs !== undefined) out.pollIntervalMs = record.pollIntervalMs;
  return out;
}

/** The answer to a `tools/call` that became a task: `Result & Task`, flat, `resultType: "task"`. */
export function createTaskResult(record: TaskRecord): JsonObject {
  return { resultType: 'task', ...taskFields(record) };
}

/**
 * The `tasks/get` result: the task, with what its status carries inline: `inputRequests` while
 * `input_required`, `result` once `completed` (an `isError` tool result too), `error` once `failed`.
 */
export function detailedTask(record: TaskRecord): JsonObject {
  const out = taskFields(record);
  switch (record.status) {
    case 'input_required':
      out.inputRequests = record.inputRequests ?? {};
      break;
    case 'completed':
      if (record.result !== undefined) out.result = record.result;
      break;
    case 'failed':
      if (record.error !== undefined) out.error = record.error;
      break;
    case 'working':
    case 'cancelled':
      break;
  }
  return out;
}
