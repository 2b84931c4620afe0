/**
 * The tasks extension on the server (`io.modelcontextprotocol/tasks`, SEP-2663; 2026-07-28 only). It
 * advertises the extension under `capabilities.extensions`, decides per `tools/call` whether the call
 * runs as a task (the tool is declared for tasks and the request's client capabilities declare the
 * extension; -32021 for a `required` tool whose client did not), and serves `tasks/get` (the
 * `DetailedTask`), `tasks/update` (answers to the task's `inputRequests`; an empty ack) and
 * `tasks/cancel` (cooperative: the task is `cancelled` and its handler's signal aborted; an empty ack,
 * also for a task that had already ended). `tasks/result` and `tasks/list` do not exist (-32601). A
 * client that did not declare the extension gets -32021 from `tasks/*`; an unknown or expired task id
 * is -32602. Tasks are bound to nothing but their unguessable id (no authorization context yet).
 * @module
 */
import { ErrorCode, LocalErrorCode, ProtocolError } from '../../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import type { ServerCapabilities } from '../../protocol/types/lifecycle.js';
import {
  MemoryTaskStore,
  isTerminalStatus,
  type TaskRecord,
  type TaskStore,
} from '../../stores/task-store.js';
import type { RequestScope } from '../request-scope.js';
import type { ServerFeature } from '../server-core.js';
import { ServerError } from '../server-error.js';
import type { HandlerTable } from '../handler-table.js';
import type { RegisteredTool } from '../tool-definition.js';
import { callAsTask, type TaskCall, type TaskStarter } from './task-call.js';
import { TaskRun } from './task-run.js';
import {
  TASKS_EXTENSION,
  declaresTasks,
  detailedTask,
  missingTasksExtension,
  taskIdOf,
  unknownTask,
} from './task-wire.js';

export interface TasksOptions {
  /** Where task records live (default: a `MemoryTaskStore`, this process only). */
  store?: TaskStore;
  /**
   * How long a task is kept, from its creation, in ms (default 3,600,000: one hour); null keeps it until
   * the store drops it. A handler still running when its task expires is aborted.
   */
  ttlMs?: number | null;
  /** The polling interval suggested to clients, in ms (default 1,000). */
  pollIntervalMs?: number;
}

export const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1000;

function positiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

export class Tasks implements ServerFeature, TaskStarter {
  readonly store: TaskStore;
  readonly shutdownSignal: AbortSignal;
  readonly #ttlMs: number | null;
  readonly #pollIntervalMs: number;
  readonly #onError: ((error: Error) => void) | undefined;
  readonly #running = new Map<string, TaskRun>();

  constructor(
    options: TasksOptions,
    host: { shutdownSignal: AbortSignal; onError?: (error: Error) => void },
  ) {
    const ttlMs = options.ttlMs === undefined ? DEFAULT_TASK_TTL_MS : options.ttlMs;
    const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_TASK_POLL_INTERVAL_MS;
    if ((ttlMs !== null && !positiveInteger(ttlMs)) || !positiveInteger(pollIntervalMs)) {
      throw new ServerError(
        LocalErrorCode.InvalidDefinition,
        'tasks: ttlMs must be a positive integer or null, pollIntervalMs a positive integer',
      );
    }
    this.store = options.store ?? new MemoryTaskStore();
    this.#ttlMs = ttlMs;
    this.#pollIntervalMs = pollIntervalMs;
    this.shutdownSignal = host.shutdownSignal;
    this.#onError = host.onError;
  }

  /** Tasks whose handler runs in this process. */
  get runningCount(): number {
    return this.#running.size;
  }

  capabilities(): ServerCapabilities {
    return { extensions: { [TASKS_EXTENSION]: {} } };
  }

  install(handlers: HandlerTable): void {
    handlers.handle('tasks/get', async (params, scope) => {
      const record = await this.#find(params, scope, 'tasks/get');
      return detailedTask(record);
    });
    handlers.handle('tasks/update', async (params, scope) => {
      const responses = params.inputResponses;
      const record = await this.#find(params, scope, 'tasks/update');
      if (!isJsonObject(responses)) {
        throw new ProtocolError(
          ErrorCode.InvalidParams,
          'Invalid params: "inputResponses" must be an object',
        );
      }
      const run = this.#running.get(record.taskId);
      if (run && !isTerminalStatus(record.status)) await run.input.answer(responses);
      return {};
    });
    handlers.handle('tasks/cancel', async (params, scope) => {
      const record = await this.#find(params, scope, 'tasks/cancel');
      if (isTerminalStatus(record.status)) return {};
      const run = this.#running.get(record.taskId);
      if (run) await run.cancel();
      else {
        const now = new Date().toISOString();
        await this.store.update(record.taskId, {
          status: 'cancelled',
          lastUpdatedAt: now,
          inputRequests: undefined,
        });
      }
      return {};
    });
  }

  /**
   * Whether this `tools/call` runs as a task: its tool is declared for tasks, the request is of the
   * stateless era and declares the extension. -32021 for a `required` tool whose request does not.
   */
  decide(tool: RegisteredTool, scope: RequestScope): boolean {
    if (tool.task === undefined || scope.era !== 'modern') return false;
    if (declaresTasks(scope.client.capabilities)) return true;
    if (tool.task.support === 'required') throw missingTasksExtension(`the tool ${tool.name}`);
    return false;
  }

  /** @internal Serves a `tools/call` that `decide` said runs as a task. */
  call(call: TaskCall): Promise<JsonObject> {
    return callAsTask(call, this);
  }

  /** @internal Stores a new task for the call (resolving once `tasks/get` finds it) and tracks its run. */
  async start(call: TaskCall, controller: AbortController): Promise<TaskRun> {
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId: crypto.randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.#ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
      method: 'tools/call',
    };
    const owner = call.scope.principal?.subject;
    if (owner !== undefined) record.principal = owner;
    await this.store.create(record);
    const run = new TaskRun(record, {
      store: this.store,
      capabilities: call.scope.client.capabilities,
      controller,
      shutdownSignal: this.shutdownSignal,
      done: (ended) => this.#running.delete(ended.taskId),
      onError: this.#onError,
    });
    this.#running.set(record.taskId, run);
    return run;
  }

  /** The task a `tasks/*` request names: -32601 in the handshake era, -32021 without the extension, -32602 when unknown. */
  async #find(params: JsonObject, scope: RequestScope, method: string): Promise<TaskRecord> {
    if (scope.era !== 'modern') {
      throw new ProtocolError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method} exists only in the stateless era (the ${TASKS_EXTENSION} extension)`,
      );
    }
    if (!declaresTasks(scope.client.capabilities)) throw missingTasksExtension(method);
    const taskId = taskIdOf(params);
    const record = await this.store.get(taskId);
    // A task is served only to the principal that created it; to anyone else it does not exist.
    if (record === undefined || record.principal !== scope.principal?.subject) throw unknownTask(taskId);
    return record;
  }
}
