/**
 * Tasks, client side: when a tool call runs as a task, in which form, and the task methods of the
 * `Client` (`getTask`, `cancelTask`, `listTasks`, `taskResult`).
 *
 * A call runs as a task when the server can do it and either the caller asked (`task` option,
 * `callToolAsTask`) or the tool requires it:
 * - 2025-11-25: the server declares `tasks.requests.tools.call` and the tool's `execution.taskSupport`
 *   is `required` (always a task: the spec says clients MUST) or `optional` (when asked). A tool that
 *   does not support tasks, or a server without the capability, gets a plain call (clients MUST NOT ask).
 * - 2026-07-28: the server declares the `io.modelcontextprotocol/tasks` extension; the call declares it
 *   when asked, or when a plain call was refused with -32021 for want of it (a `required` tool), and
 *   the server decides. A call it answers at once needs no task.
 * @module
 */
import type { Peer } from '../../protocol/engine/peer.js';
import { CancellationSource, type Cancellation } from '../../protocol/engine/cancellation.js';
import { ErrorCode, LocalErrorCode, ProtocolError, ToolwireError } from '../../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import type { ServerCapabilities } from '../../protocol/types/lifecycle.js';
import { TASKS_EXTENSION, readTaskInfo, type TaskInfo } from '../../protocol/types/tasks.js';
import type { Tool } from '../../protocol/types/tools.js';
import { ClientError } from '../client-error.js';
import type { ClientHandlers } from '../client-handlers.js';
import { followPages, type ListLimits } from '../follow-pages.js';
import type { ExchangeOptions } from '../exchange-options.js';
import { followTask } from './follow-task.js';
import { EXTENSION_META, taskOf, taskParams, type TaskForm, type TaskHost } from './task-host.js';
import type { ToolTask } from './tool-task.js';

/** What `callTool`'s `task` option asks for. */
export interface TaskRequest {
  /** 2025-11-25: the lifetime to ask for, in ms (the server may keep the task less long). */
  ttlMs?: number;
}

export interface ClientTasksHost {
  /** One request through the client's links, in the era spoken. */
  request(method: string, params: JsonObject | undefined, options?: ExchangeOptions): Promise<JsonObject>;
  readonly handlers: ClientHandlers;
  /** The era and the server's capabilities, once connected. */
  era(): 'handshake' | 'stateless' | undefined;
  protocolVersion(): string | undefined;
  serverCapabilities(): ServerCapabilities | undefined;
  listLimits: ListLimits;
  /**
   * 2026-07-28: asks for the task's `notifications/tasks` on the listen stream, `listening` called once the
   * server acknowledged it; returns the undo.
   */
  listenToTask(taskId: string, listening?: () => void): () => void;
  /** Aborts when the connection closes (see `TaskHost.closed`). */
  readonly closed: AbortSignal;
}

/** The task a call created, and how it is followed. */
export interface TaskStart {
  form: TaskForm;
  task: TaskInfo;
}

/** Whether two snapshots of a task say the same (a poll that saw what a notification told already). */
export function sameStatus(a: TaskInfo, b: TaskInfo): boolean {
  return a.status === b.status && a.statusMessage === b.statusMessage && a.lastUpdatedAt === b.lastUpdatedAt;
}

export class ClientTasks implements TaskHost {
  readonly handlers: ClientHandlers;
  readonly closed: AbortSignal;
  readonly #host: ClientTasksHost;
  readonly #watchers = new Map<string, Set<(task: TaskInfo, wire: JsonObject) => void>>();

  constructor(host: ClientTasksHost, peer: Peer) {
    this.#host = host;
    this.handlers = host.handlers;
    this.closed = host.closed;
    const tell = (params: JsonObject) => {
      const task = readTaskInfo(params);
      if (task) this.#watchers.get(task.taskId)?.forEach((listener) => listener(task, params));
    };
    // 2025-11-25 status notifications; the 2026-07-28 extension's (the detailed task) on the listen stream.
    peer.setNotificationHandler('notifications/tasks/status', tell);
    peer.setNotificationHandler('notifications/tasks', tell);
  }

  request(method: string, params: JsonObject, options?: ExchangeOptions): Promise<JsonObject> {
    return this.#host.request(method, params, options);
  }

  listen(taskId: string, listening?: () => void): () => void {
    return this.#host.listenToTask(taskId, listening);
  }

  watch(taskId: string, listener: (task: TaskInfo, wire: JsonObject) => void): () => void {
    let listeners = this.#watchers.get(taskId);
    if (!listeners) this.#watchers.set(taskId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#watchers.delete(taskId);
    };
  }

  /** The form the server speaks tasks in; undefined when it speaks none the client can use. */
  form(): TaskForm | undefined {
    const caps = this.#host.serverCapabilities();
    if (this.#host.era() === 'stateless') {
      return isJsonObject(caps?.extensions) && isJsonObject(caps.extensions[TASKS_EXTENSION])
        ? 'extension'
        : undefined;
    }
    const requests = isJsonObject(caps?.tasks) ? caps.tasks.requests : undefined;
    const tools = isJsonObject(requests) ? requests.tools : undefined;
    const call = isJsonObject(tools) ? tools.call : undefined;
    return this.#host.protocolVersion() === '2025-11-25' && isJsonObject(call) ? 'core' : undefined;
  }

  /** How a call runs: as a task in the form returned, or (undefined) as a plain call. */
  async plan(tool: () => Promise<Tool>, asked: boolean): Promise<TaskForm | undefined> {
    const form = this.form();
    if (form !== 'core') return asked ? form : undefined;
    const support = (await tool()).execution?.taskSupport;
    return support === 'required' || (support === 'optional' && asked) ? 'core' : undefined;
  }

  /** Whether a plain call's error says the tool needs the tasks extension (and the server has it). */
  needsExtension(error: unknown): boolean {
    if (!(error instanceof ProtocolError) || error.code !== ErrorCode.MissingRequiredClientCapability)
      return false;
    const data = error.data;
    const required = isJsonObject(data) ? data.requiredCapabilities : undefined;
    const extensions = isJsonObject(required) ? required.extensions : undefined;
    return isJsonObject(extensions) && TASKS_EXTENSION in extensions && this.form() === 'extension';
  }

  /**
   * Calls the tool asking for a task: resolves with the raw result, at once when the server answered the
   * call itself, else once the task ended (followed meanwhile, each status to `handle`).
   */
  async call(
    form: TaskForm,
    params: JsonObject,
    request: TaskRequest,
    options: ExchangeOptions,
    handle: ToolTask | undefined,
    onStatus: ((task: TaskInfo) => void) | undefined,
  ): Promise<JsonObject> {
    const asTask: JsonObject =
      form === 'core'
        ? { ...params, task: request.ttlMs === undefined ? {} : { ttl: request.ttlMs } }
        : { ...params, _meta: { ...(isJsonObject(params._meta) ? params._meta : {}), ...EXTENSION_META } };
    const started = Date.now();
    // The call's progress keeps coming after the task is created, with the call's token, until it ends.
    let ended!: () => void;
    const progressUntil = new Promise<void>((resolve) => (ended = resolve));
    try {
      const created = await this.#host.request(
        'tools/call',
        asTask,
        options.onProgress ? { ...options, progressUntil } : options,
      );
      const wire = form === 'core' ? created.task : created.resultType === 'task' ? created : undefined;
      if (wire === undefined) return created;
      const task = taskOf('tools/call', wire);
      let last: TaskInfo | undefined;
      const report = (status: TaskInfo) => {
        if (last && sameStatus(last, status)) return;
        last = status;
        handle?.update(status);
        onStatus?.(status);
      };
      handle?.started(task, { cancel: () => this.cancel(task.taskId, form) });
      return await followWithin(options.maxTotalTimeout, started, options.cancellation, (bounded) =>
        followTask(this, form, task, report, bounded ? { ...options, ...bounded } : options),
      );
    } finally {
      ended();
    }
  }

  /** The task's current status. */
  async get(taskId: string, options?: ExchangeOptions): Promise<TaskInfo> {
    const form = this.#require('getTask');
    return taskOf('tasks/get', await this.#host.request('tasks/get', taskParams(form, taskId), options));
  }

  /**
   * Asks the server to cancel the task: ClientError CAPABILITY_NOT_SUPPORTED from a 2025-11-25 server
   * that did not declare `tasks.cancel` (nothing is sent).
   */
  async cancel(
    taskId: string,
    form: TaskForm = this.#require('cancelTask'),
    options?: ExchangeOptions,
  ): Promise<void> {
    if (!this.cancels(form)) throw undeclared('cancelTask', 'tasks.cancel');
    await this.#host.request('tasks/cancel', taskParams(form, taskId), options);
  }

  /** Whether `tasks/cancel` may be sent: always in the extension; in 2025-11-25 once `tasks.cancel` is declared. */
  cancels(form: TaskForm): boolean {
    return form === 'extension' || this.#declares('cancel');
  }

  /**
   * 2025-11-25: every task of the caller (all pages). ClientError CAPABILITY_NOT_SUPPORTED in the 2026-07-28
   * extension (no listing there) and from a server that did not declare `tasks.list` (nothing is sent).
   */
  list(options?: ExchangeOptions): Promise<TaskInfo[]> {
    if (this.#require('listTasks') !== 'core') {
      throw new ClientError(
        LocalErrorCode.CapabilityNotSupported,
        'tasks/list does not exist in the tasks extension of 2026-07-28',
      );
    }
    if (!this.#declares('list')) throw undeclared('listTasks', 'tasks.list');
    return followPages(
      (cursor) => this.#host.request('tasks/list', cursor === undefined ? {} : { cursor }, options),
      {
        method: 'tasks/list',
        key: 'tasks',
        limits: this.#host.listLimits,
        emptyCursorEnds: true,
        accept: (item): item is TaskInfo => readTaskInfo(item) !== undefined,
      },
    ).then((items) => items.map((item) => readTaskInfo(item)!));
  }

  /** The task's result once it ends (followed meanwhile); rejects as the call would have. */
  async result(taskId: string, options: ExchangeOptions = {}): Promise<JsonObject> {
    const form = this.#require('taskResult');
    const wire = await this.#host.request('tasks/get', taskParams(form, taskId), options);
    return followTask(this, form, taskOf('tasks/get', wire), () => undefined, options, wire);
  }

  /** 2025-11-25: whether the server's `tasks` capability declares `name` (`list`, `cancel`). */
  #declares(name: 'list' | 'cancel'): boolean {
    const tasks = this.#host.serverCapabilities()?.tasks;
    return isJsonObject(tasks) && isJsonObject(tasks[name]);
  }

  #require(method: string): TaskForm {
    const form = this.form();
    if (form === undefined) {
      throw new ClientError(
        LocalErrorCode.CapabilityNotSupported,
        `${method}: the server does not support tasks (2025-11-25 tasks.requests.tools.call, or the ${TASKS_EXTENSION} extension)`,
      );
    }
    return form;
  }
}

/** ClientError CAPABILITY_NOT_SUPPORTED for a 2025-11-25 task method the server did not declare. */
function undeclared(method: string, capability: string): ClientError {
  return new ClientError(
    LocalErrorCode.CapabilityNotSupported,
    `${method}: the server did not declare ${capability}`,
  );
}

/**
 * Follows a call's task for what is left of the call's `maxTotalTimeout` (from when the call was sent) at
 * most: then the task is cancelled, as when the caller aborts, and the call rejects with ToolwireError
 * REQUEST_TIMEOUT, as a plain call cut at its maximum does. Without it a task that never ended held the
 * call, polled, for ever (a gateway's plain call of a tool that requires a task upstream: 20 polls a
 * second, the call never answered, whatever its `maxCallMs`).
 */
async function followWithin(
  maxTotal: number | undefined,
  started: number,
  given: Cancellation | undefined,
  follow: (bounded?: { cancellation: Cancellation }) => Promise<JsonObject>,
): Promise<JsonObject> {
  if (maxTotal === undefined || !Number.isFinite(maxTotal)) return follow();
  const own = new CancellationSource();
  const timedOut = new ToolwireError(
    LocalErrorCode.RequestTimeout,
    `Request tools/call exceeded its maximum total timeout of ${maxTotal} ms`,
    { details: { method: 'tools/call', maxTotalTimeout: maxTotal } },
  );
  const timer = setTimeout(() => own.abort(timedOut), Math.max(0, started + maxTotal - Date.now()));
  const unfollow = given?.onAbort((reason) => own.abort(reason));
  if (given?.aborted) own.abort(given.reason);
  try {
    return await follow({ cancellation: own });
  } catch (error) {
    throw own.reason === timedOut ? timedOut : error;
  } finally {
    clearTimeout(timer);
    unfollow?.();
  }
}
