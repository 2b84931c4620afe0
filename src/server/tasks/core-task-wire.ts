/**
 * The wire of 2025-11-25 tasks (SEP-1686, the experimental core of that revision): the server's `tasks`
 * capability, `params.task` of a task-augmented `tools/call`, a tool's `execution.taskSupport`, the
 * `Task` object (`ttl`, `pollInterval`), the `CreateTaskResult` (`{ task }`), what `tasks/result`
 * answers for a terminal task, and the errors of this form.
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import { isJsonObject, withMember, type JsonObject } from '../../protocol/jsonrpc.js';
import type { ServerCapabilities } from '../../protocol/types/lifecycle.js';
import { coreTask, withRelatedTask, type CoreTask, type TaskMetadata } from '../../protocol/types/tasks.js';
import type { TaskRecord } from '../../stores/task-store.js';

/** The `tasks` server capability: `tasks/list`, `tasks/cancel` and task-augmented `tools/call`. */
export const CORE_TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/** The `tasks` capability without `tasks/list`, for a caller the server cannot tell from others. */
const UNLISTED_TASKS_CAPABILITY = { cancel: {}, requests: { tools: { call: {} } } };

/** `caps` (shaped for the session's revision) without `tasks.list`; as they are when they have no `tasks`. */
export function withoutTasksList(caps: ServerCapabilities): ServerCapabilities {
  return caps.tasks === undefined ? caps : withMember(caps, 'tasks', UNLISTED_TASKS_CAPABILITY);
}

/**
 * -32601 for `tasks/list` from a caller it was not declared to (an anonymous caller the server cannot tell
 * from others: SEP-1686 says such a receiver SHOULD NOT declare `tasks.list`).
 */
export function tasksListUndeclared(): ProtocolError {
  return new ProtocolError(
    ErrorCode.MethodNotFound,
    'Method not found: tasks/list is declared only to callers the server can tell apart (authenticated, or alone on their connection); get a task by its id',
  );
}

/** A record in the 2025-11-25 form. */
export function coreTaskOf(record: TaskRecord): CoreTask {
  return coreTask(record);
}

/** The answer to a task-augmented `tools/call`. */
export function createCoreTaskResult(record: TaskRecord): { task: CoreTask } {
  return { task: coreTaskOf(record) };
}

/** `params.task` of a request: undefined when absent; -32602 when it is not `{ ttl?: number }`. */
export function taskParam(params: JsonObject): TaskMetadata | undefined {
  const task = params.task;
  if (task === undefined) return undefined;
  const ttl = isJsonObject(task) ? task.ttl : undefined;
  if (!isJsonObject(task) || (ttl !== undefined && (typeof ttl !== 'number' || !(ttl >= 0)))) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      'Invalid params: "task" must be an object whose optional "ttl" is a non-negative number of ms',
    );
  }
  return ttl === undefined ? {} : { ttl };
}

/** -32601 for a task-augmented call of a tool whose `taskSupport` is `forbidden` (SEP-1686: SHOULD). */
export function taskForbidden(tool: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MethodNotFound,
    `Method not found: tool ${tool} does not support task-augmented calls (execution.taskSupport is "forbidden")`,
  );
}

/** -32601 for a plain call of a tool whose `taskSupport` is `required` (SEP-1686: MUST). */
export function taskRequired(tool: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MethodNotFound,
    `Method not found: tool ${tool} requires a task-augmented call (execution.taskSupport is "required"; send params.task)`,
  );
}

/**
 * What `tasks/result` answers for a terminal task: exactly what the `tools/call` would have answered
 * (the result, a tool error included; or its JSON-RPC error), with the related-task `_meta`. A cancelled
 * task has no result: -32602.
 */
export function corePayload(record: TaskRecord): JsonObject {
  if (record.result !== undefined) {
    return withMember(record.result, '_meta', withRelatedTask(record.result._meta, record.taskId));
  }
  if (record.status === 'failed' && record.error !== undefined) {
    const { code, message, data } = record.error;
    throw new ProtocolError(code, message, data);
  }
  throw new ProtocolError(
    ErrorCode.InvalidParams,
    `Invalid params: task ${record.taskId} was ${record.status} and has no result`,
  );
}

/** -32602 for `tasks/cancel` of a task that already ended (SEP-1686: MUST). */
export function alreadyTerminal(record: TaskRecord): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `Cannot cancel task ${record.taskId}: already in terminal status '${record.status}'`,
  );
}

/** -32602 for a `tasks/list` cursor the store did not issue. */
export function invalidTaskCursor(cursor: unknown): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `Invalid params: unknown cursor ${echoedName(JSON.stringify(cursor))}`,
  );
}
