/**
 * Tasks on the wire, in both of their forms: the experimental core of 2025-11-25 (SEP-1686: `params.task`
 * on `tools/call`, `Tool.execution.taskSupport`, `tasks/get`, `tasks/result`, `tasks/list`,
 * `tasks/cancel`, `notifications/tasks/status`; the task's lifetime is `ttl`, its polling hint
 * `pollInterval`) and the tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663: the
 * server decides, `resultType: "task"`, `ttlMs`, `pollIntervalMs`, `tasks/update`). `TaskInfo` is the one
 * shape both read into.
 * @module
 */
import { isJsonObject, type JsonObject } from '../jsonrpc.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const STATUSES: ReadonlySet<string> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/** `completed`, `failed` and `cancelled`: the task is over and never changes again. */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** The 2026-07-28 extension's identifier, the key under `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** 2025-11-25: the `_meta` key that ties a message to its task (`{ taskId }`). */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** The polling interval of a task when none is given, in ms: what a server suggests, and a client waits. */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1000;

/** 2025-11-25: an optional hint in a `CreateTaskResult`'s `_meta`, text a host may hand the model at once. */
export const MODEL_IMMEDIATE_RESPONSE_META = 'io.modelcontextprotocol/model-immediate-response';

/** 2025-11-25: how a tool may be called (`Tool.execution.taskSupport`; absent means `forbidden`). */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** 2025-11-25: the `task` param of a task-augmented request. */
export interface TaskMetadata {
  /** The lifetime the requestor asks for, in ms from creation (the receiver may choose another). */
  ttl?: number;
}

/** 2025-11-25: a task on the wire (`tasks/get`, `tasks/cancel`, `tasks/list`, status notifications). */
export interface CoreTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** How long the task is kept from its creation, in ms; null: without limit. */
  ttl: number | null;
  /** The suggested polling interval, in ms. */
  pollInterval?: number;
}

/** A task, whichever form it came in: the 2026-07-28 field names. */
export interface TaskInfo {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** How long the task is kept from its creation, in ms; null: without limit. */
  ttlMs: number | null;
  /** The suggested polling interval, in ms. */
  pollIntervalMs?: number;
}

export function isTaskStatus(value: unknown): value is TaskStatus {
  return typeof value === 'string' && STATUSES.has(value);
}

const optionalNumber = (value: unknown) => value === undefined || typeof value === 'number';

/**
 * A wire task of either form (`ttl`/`pollInterval` or `ttlMs`/`pollIntervalMs`) as a `TaskInfo`;
 * undefined when it is not one (no id, an unknown status, a missing timestamp).
 */
export function readTaskInfo(value: unknown): TaskInfo | undefined {
  if (!isJsonObject(value) || typeof value.taskId !== 'string' || value.taskId === '') return undefined;
  if (!isTaskStatus(value.status)) return undefined;
  if (typeof value.createdAt !== 'string' || typeof value.lastUpdatedAt !== 'string') return undefined;
  const ttl = 'ttlMs' in value ? value.ttlMs : value.ttl;
  const poll = 'pollIntervalMs' in value ? value.pollIntervalMs : value.pollInterval;
  if ((ttl !== null && typeof ttl !== 'number') || !optionalNumber(poll)) return undefined;
  if (value.statusMessage !== undefined && typeof value.statusMessage !== 'string') return undefined;
  const info: TaskInfo = {
    taskId: value.taskId,
    status: value.status,
    createdAt: value.createdAt,
    lastUpdatedAt: value.lastUpdatedAt,
    ttlMs: ttl,
  };
  if (value.statusMessage !== undefined) info.statusMessage = value.statusMessage;
  if (typeof poll === 'number') info.pollIntervalMs = poll;
  return info;
}

/** A task in the 2025-11-25 form. */
export function coreTask(task: TaskInfo): CoreTask {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs,
    ...(task.pollIntervalMs === undefined ? {} : { pollInterval: task.pollIntervalMs }),
  };
}

/** The task a message's `_meta` ties it to (2025-11-25: the related-task key's `taskId`), if it names one. */
export function relatedTaskId(meta: unknown): string | undefined {
  if (!isJsonObject(meta)) return undefined;
  const related = meta[RELATED_TASK_META];
  return isJsonObject(related) && typeof related.taskId === 'string' ? related.taskId : undefined;
}

/** `_meta` with the related-task key for `taskId` (2025-11-25), added to whatever `meta` holds. */
export function withRelatedTask(meta: unknown, taskId: string): JsonObject {
  return { ...(isJsonObject(meta) ? meta : {}), [RELATED_TASK_META]: { taskId } };
}
