/**
 * Tasks on the server: one engine (records in a `TaskStore`, runs in this process, cancellation,
 * expiry) that speaks two forms, chosen by the request's era (a new task's run in each form:
 * `task-run-in-form.ts`; the options: `tasks-options.ts`).
 *
 * - 2025-11-25 (SEP-1686, the handshake era's experimental core): the server declares the `tasks`
 *   capability; a client asks for a task with `params.task` on `tools/call` and gets `{ task }`; a tool's
 *   `execution.taskSupport` (from its `task` declaration) is enforced with -32601 both ways; `tasks/get`,
 *   `tasks/result` (blocks until the task ends, carrying its questions meanwhile), `tasks/list` (the
 *   caller's tasks: its principal's, or its connection's when anonymous on stdio or in memory; declared
 *   to those callers only, see `lists`) and `tasks/cancel` (-32602 for a task that already ended);
 *   `notifications/tasks/status` to the creating session on each change.
 *   Revisions before 2025-11-25 see none of it: their calls run inline.
 * - 2026-07-28 (the `io.modelcontextprotocol/tasks` extension, SEP-2663): see `task-handlers.ts`; and
 *   `notifications/tasks` (the `DetailedTask`, as `tasks/get` answers it) on each change of a task this
 *   process runs, on the `subscriptions/listen` streams that name it (`taskIds`, the caller's own tasks).
 *
 * A task is served only to the principal that created it, and only in its own form; to anyone else it
 * does not exist (-32602). Anonymous tasks are guarded by their unguessable id alone.
 *
 * On a store several processes share that keeps leases (`renewLeases`, as the Redis one does), each task
 * is leased and this process renews the leases of the tasks it runs (`task-leases.ts`): when it dies, the
 * first read of such a task through another process after its lease runs out settles it `failed`
 * (-32603, "The server instance running task X stopped before it finished").
 * @module
 */
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { ServerCapabilities } from '../../protocol/types/lifecycle.js';
import { TASKS_EXTENSION, type TaskMetadata } from '../../protocol/types/tasks.js';
import { MemoryTaskStore } from '../../stores/memory-task-store.js';
import {
  TaskLimitReached,
  isTerminalStatus,
  type TaskRecord,
  type TaskStore,
} from '../../stores/task-store.js';
import type { Principal } from '../auth/principal.js';
import { rateLimitedError } from '../middleware/rate-limit.js';
import type { HandlerTable } from '../handler-table.js';
import type { RequestScope } from '../request-scope.js';
import type { ServerFeature } from '../server-feature.js';
import type { ToolCallAnswer } from '../server-results.js';
import type { SessionView } from '../session-view.js';
import type { RegisteredTool } from '../tools/tool-definition.js';
import { CORE_TASKS_CAPABILITY, taskForbidden, taskParam, taskRequired } from './core-task-wire.js';
import { callAsTask, type TaskCall, type TaskStarter } from './task-call.js';
import { installTaskHandlers } from './task-handlers.js';
import { TaskLeases } from './task-leases.js';
import { SharedTaskMessages } from './shared-task-messages.js';
import type { TaskRun } from './task-run.js';
import { taskRunInForm, type TaskListener } from './task-run-in-form.js';
import { declaresTasks, missingTasksExtension, taskIdOf, unknownTask } from './task-wire.js';
import { taskTimings, type TasksOptions } from './tasks-options.js';

export interface TasksHost {
  readonly shutdownSignal: AbortSignal;
  /** The open `subscriptions/listen` streams (2026-07-28). */
  readonly listeners?: () => Iterable<TaskListener>;
  /**
   * Where each `notifications/tasks` this process sends goes besides its own streams (a transport sharing
   * sessions tells the other processes); undefined while nothing listens.
   */
  readonly changed?: () => ((task: JsonObject) => void) | undefined;
  /** Tasks per `tasks/list` page. */
  readonly pageSize: number;
  readonly onError?: (error: Error) => void;
}

export class TasksFeature implements ServerFeature, TaskStarter {
  readonly store: TaskStore;
  readonly shutdownSignal: AbortSignal;
  /** @internal Tasks per `tasks/list` page. */
  readonly pageSize: number;
  /** @internal The polling interval suggested to clients. */
  readonly pollIntervalMs: number;
  readonly #ttlMs: number | null;
  /** A caller's running tasks at most (`tasks.maxRunning`). */
  readonly #maxRunning: number;
  /** A caller's ended tasks kept at most (`tasks.maxKept`). */
  readonly #maxKept: number;
  /** @internal Errors that reach no caller. */
  readonly onError: ((error: Error) => void) | undefined;
  readonly #listeners: (() => Iterable<TaskListener>) | undefined;
  readonly #changed: (() => ((task: JsonObject) => void) | undefined) | undefined;
  readonly #running = new Map<string, TaskRun>();
  readonly #leases: TaskLeases;
  /** Who anonymous sessions without a session id are, for `tasks/list`. */
  readonly #sessionKeys = new WeakMap<SessionView, string>();
  /** What other processes sharing the store publish about the tasks run here. */
  readonly #shared: SharedTaskMessages;

  constructor(options: TasksOptions, host: TasksHost) {
    const { ttlMs, pollIntervalMs, maxRunning, maxKept } = taskTimings(options);
    this.store = options.store ?? new MemoryTaskStore();
    this.#ttlMs = ttlMs;
    this.#maxRunning = maxRunning;
    this.#maxKept = maxKept;
    this.pollIntervalMs = pollIntervalMs;
    this.pageSize = host.pageSize;
    this.shutdownSignal = host.shutdownSignal;
    this.onError = host.onError;
    this.#listeners = host.listeners;
    this.#changed = host.changed;
    this.#shared = new SharedTaskMessages({
      store: this.store,
      running: this.#running,
      shutdownSignal: this.shutdownSignal,
      onError: this.onError,
    });
    this.#leases = new TaskLeases({
      store: this.store,
      running: () => [...this.#running.keys()],
      lost: (taskId) =>
        this.#running
          .get(taskId)
          ?.abandon(new Error(`The task ${taskId} ended elsewhere: its lease ran out before it was renewed`)),
      renewed: () => this.#shared.takeAnswers(),
      shutdownSignal: this.shutdownSignal,
      onError: this.onError,
    });
  }

  /**
   * @internal Which of `taskIds` a stateless-era caller may hear about on its listen stream: its own
   * tasks of the extension form (-32021 when the request does not declare the extension).
   */
  async visible(taskIds: readonly string[], scope: RequestScope): Promise<string[]> {
    if (!declaresTasks(scope.client.capabilities)) throw missingTasksExtension('subscribing to tasks');
    const records = await Promise.all(taskIds.map((taskId) => this.store.get(taskId)));
    return records
      .filter(
        (record): record is TaskRecord =>
          record !== undefined &&
          record.revision !== '2025-11-25' &&
          record.principal === scope.principal?.subject,
      )
      .map((record) => record.taskId);
  }

  /** Tasks whose handler runs in this process. */
  get runningCount(): number {
    return this.#running.size;
  }

  /** Both forms; each revision's shaping keeps the one it has (`tasks` for 2025-11-25, `extensions` after). */
  capabilities(): ServerCapabilities {
    return { tasks: CORE_TASKS_CAPABILITY, extensions: { [TASKS_EXTENSION]: {} } };
  }

  install(handlers: HandlerTable): void {
    installTaskHandlers(handlers, this);
  }

  /**
   * @internal Whether this `tools/call` runs as a task, and with what the client asked (`params.task`): undefined
   * runs it inline. 2025-11-25: the client decides, within the tool's `taskSupport` (-32601 for a task
   * the tool forbids, and for a plain call of one that requires it). 2026-07-28: the server decides, for
   * a tool declared for tasks whose request declares the extension (-32021 for a `required` tool whose
   * request does not). Earlier revisions: always inline.
   */
  decide(tool: RegisteredTool, scope: RequestScope, params: JsonObject): TaskMetadata | undefined {
    if (scope.era === 'stateless') {
      if (tool.task === undefined) return undefined;
      if (declaresTasks(scope.client.capabilities)) return {};
      if (tool.task.support === 'required') throw missingTasksExtension(`the tool ${tool.name}`);
      return undefined;
    }
    if (!scope.profile.features.tasks) return undefined;
    const task = taskParam(params);
    if (task === undefined) {
      if (tool.task?.support === 'required') throw taskRequired(tool.name);
      return undefined;
    }
    if (tool.task === undefined) throw taskForbidden(tool.name);
    return task;
  }

  /** @internal Serves a `tools/call` that `decide` said runs as a task. */
  call(call: TaskCall): Promise<ToolCallAnswer> {
    return callAsTask(call, this);
  }

  /** @internal Stores a new task for the call (resolving once `tasks/get` finds it) and tracks its run. */
  async start(call: TaskCall, controller: AbortController): Promise<TaskRun> {
    const { scope, session } = call;
    const core = scope.era === 'handshake';
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId: crypto.randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: core && call.ttl !== undefined ? this.#lifetime(call.ttl) : this.#ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      method: 'tools/call',
    };
    const subject = scope.principal?.subject;
    if (subject !== undefined) record.principal = subject;
    if (core) {
      record.revision = '2025-11-25';
      record.owner = this.ownerOf(scope, session);
    }
    await this.#shared.watch();
    const leased = this.#leases.leased;
    // Counted against its owner (2025-11-25), else its principal; anonymous stateless callers share one count.
    const key = record.owner ?? (subject === undefined ? 'anonymous' : `principal:${subject}`);
    await this.store
      .create(record, { lease: leased, limit: { key, max: this.#maxRunning, maxKept: this.#maxKept } })
      .catch((error: unknown) => {
        if (!(error instanceof TaskLimitReached)) throw error;
        throw rateLimitedError(
          `Too many running tasks: this caller has ${error.max} (the limit); wait for one to end or cancel one`,
          { retryAfterMs: this.pollIntervalMs, limit: 'tasks' },
        );
      });
    const run = taskRunInForm(record, call, {
      runHost: {
        store: this.store,
        controller,
        shutdownSignal: this.shutdownSignal,
        done: (ended: TaskRun) => {
          this.#running.delete(ended.taskId);
          this.#leases.stopped();
        },
        onError: this.onError,
      },
      claims: (taskId) => this.#shared.claims(taskId),
      listeners: this.#listeners,
      others: this.#changed,
    });
    this.#running.set(record.taskId, run);
    if (leased) this.#leases.started();
    return run;
  }

  /** @internal The run of a task whose handler runs in this process. */
  running(taskId: string): TaskRun | undefined {
    return this.#running.get(taskId);
  }

  /**
   * @internal The task a `tasks/*` request names, in the request's form: -32021 for a stateless-era
   * request without the extension, -32602 when there is no such task for this caller in this form.
   */
  async find(params: JsonObject, scope: RequestScope, method: string): Promise<TaskRecord> {
    const stateless = scope.era === 'stateless';
    if (stateless && !declaresTasks(scope.client.capabilities)) throw missingTasksExtension(method);
    const taskId = taskIdOf(params);
    const record = await this.store.get(taskId);
    // A task is served only to the principal that created it, in its own form; else it does not exist.
    if (
      record === undefined ||
      record.principal !== scope.principal?.subject ||
      (record.revision === '2025-11-25') === stateless
    ) {
      throw unknownTask(taskId);
    }
    return record;
  }

  /** @internal Cancels a task that has not ended: its run here, else its record. Resolves with the record after. */
  async cancel(record: TaskRecord): Promise<TaskRecord | undefined> {
    const run = this.#running.get(record.taskId);
    if (run) await run.cancel();
    else {
      const now = new Date().toISOString();
      const after = await this.store.update(record.taskId, {
        status: 'cancelled',
        statusMessage: 'Cancelled by the client',
        lastUpdatedAt: now,
        inputRequests: undefined,
      });
      // Its handler may run in another process sharing the store: that one aborts it. The record says
      // `cancelled` whatever happens to the message (a failure to send it is reported, not answered).
      if (after?.status === 'cancelled')
        await this.store
          .publishCancelled?.(record.taskId)
          .catch((error: unknown) => this.onError?.(error as Error));
    }
    return this.store.get(record.taskId);
  }

  /**
   * @internal The task once it has ended (undefined once it is gone): awaits its run in this process,
   * else reads the store every poll interval (`read` sees each record before it ends). Rejects with the
   * reason when `signal` aborts.
   */
  async ended(
    taskId: string,
    signal: AbortSignal,
    read?: (record: TaskRecord) => Promise<void>,
  ): Promise<TaskRecord | undefined> {
    for (;;) {
      signal.throwIfAborted();
      const record = await this.store.get(taskId);
      if (record === undefined || isTerminalStatus(record.status)) return record;
      await read?.(record);
      const run = this.#running.get(taskId);
      await untilAborted(run ? run.ended : delay(record.pollIntervalMs ?? this.pollIntervalMs), signal);
    }
  }

  /**
   * @internal Whether `tasks/list` is declared to a 2025-11-25 caller (`principal` on `session`) and
   * served to it: only to a requestor the server can tell from every other (SEP-1686: receivers that
   * cannot identify requestors SHOULD NOT declare it) — one with a principal, or one whose connection is
   * its own by construction (stdio, in memory: no session id, not a stateless server's per-request
   * connection). An anonymous HTTP session is not one: its client may come back on another, and an
   * anonymous task is retrievable by its unguessable id from any anonymous session, so no listing could
   * hold every task the caller may get (the spec: a task retrievable through `tasks/get` MUST be listed).
   */
  lists(principal: Principal | undefined, session: SessionView): boolean {
    if (principal !== undefined) return true;
    const transport = session.peer.transport;
    return transport?.sessionId === undefined && transport?.perRequest !== true;
  }

  /** @internal Whose `tasks/list` a 2025-11-25 task joins: its principal's, else its session's. */
  ownerOf(scope: RequestScope, session: SessionView): string {
    const subject = scope.principal?.subject;
    if (subject !== undefined) return `principal:${subject}`;
    let key = session.peer.transport?.sessionId ?? this.#sessionKeys.get(session);
    if (key === undefined) this.#sessionKeys.set(session, (key = crypto.randomUUID()));
    return `session:${key}`;
  }

  /** The lifetime of a 2025-11-25 task whose client asked for `requested` ms: at most the server's. */
  #lifetime(requested: number): number | null {
    const asked = Math.max(1, Math.floor(requested));
    return this.#ttlMs === null ? asked : Math.min(asked, this.#ttlMs);
  }
}

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    (timer as { unref?: () => void }).unref?.();
  });

/** `promise`, or a rejection with the abort reason once `signal` aborts (its listener removed after). */
function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<unknown> {
  let onAbort = () => {};
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}
