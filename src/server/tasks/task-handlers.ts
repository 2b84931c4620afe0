/**
 * The `tasks/*` methods, in the server's handler table, for both forms of tasks. `tasks/get` and
 * `tasks/cancel` exist in both eras and answer in the request's form; `tasks/result` and `tasks/list`
 * only in the handshake era (2025-11-25), `tasks/update` only in the stateless era (the extension).
 *
 * 2025-11-25: `tasks/get` answers the `Task`; `tasks/result` blocks until the task ends and answers what
 * the `tools/call` would have (meanwhile it carries the task's questions to the client); `tasks/list`
 * pages through the caller's tasks; `tasks/cancel` cancels a task that has not ended and answers it
 * (-32602 for one that has). A request at an earlier revision gets -32601.
 *
 * 2026-07-28: `tasks/get` answers the `DetailedTask`; `tasks/update` answers the task's
 * `inputRequests` (an empty ack); `tasks/cancel` is cooperative (an empty ack, also for a task that had
 * ended). A request that does not declare the extension gets -32021.
 * @module
 */
import { mergedSignal, type MergedSignal } from '../../protocol/engine/merged-signal.js';
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import {
  InvalidTaskCursor,
  isTerminalStatus,
  type TaskRecord,
  type TaskStore,
} from '../../stores/task-store.js';
import type { Principal } from '../auth/principal.js';
import type { HandlerTable } from '../handler-table.js';
import { cursorParam } from '../pages.js';
import type { RequestScope } from '../request-scope.js';
import type { SessionView } from '../session-view.js';
import { checkInputResponse, isInputMethod } from '../input-required/input-requests.js';
import { CoreTaskInput } from './core-task-input.js';
import {
  alreadyTerminal,
  coreTaskOf,
  corePayload,
  invalidTaskCursor,
  tasksListUndeclared,
} from './core-task-wire.js';
import { RemoteTaskQuestions, claimLifetime, sharesInput } from './remote-task-questions.js';
import { TaskInput } from './task-input.js';
import type { TaskRun } from './task-run.js';
import { detailedTask, unknownTask } from './task-wire.js';

/** What the handlers need of the task engine (`TasksFeature`). */
export interface TaskEngine {
  readonly store: TaskStore;
  readonly shutdownSignal: AbortSignal;
  /** Tasks per `tasks/list` page. */
  readonly pageSize: number;
  /** The task a request names, for this caller in this form (else -32602; -32021 without the extension). */
  find(params: JsonObject, scope: RequestScope, method: string): Promise<TaskRecord>;
  /** Cancels a task that has not ended; resolves with its record after. */
  cancel(record: TaskRecord): Promise<TaskRecord | undefined>;
  /** The run of a task whose handler runs in this process. */
  running(taskId: string): TaskRun | undefined;
  /** The task once it has ended (undefined once gone; `read` sees each record read before); rejects when `signal` aborts. */
  ended(
    taskId: string,
    signal: AbortSignal,
    read?: (record: TaskRecord) => Promise<void>,
  ): Promise<TaskRecord | undefined>;
  /** Whether `tasks/list` is declared to the caller (`principal` on `session`) and served to it. */
  lists(principal: Principal | undefined, session: SessionView): boolean;
  /** Whose `tasks/list` the caller reads. */
  ownerOf(scope: RequestScope, session: SessionView): string;
  /** Errors that reach no caller. */
  readonly onError?: ((error: Error) => void) | undefined;
}

/** -32601 for a handshake-era request at a revision without tasks (before 2025-11-25). */
function requireCoreTasks(scope: RequestScope, method: string): void {
  if (scope.era === 'handshake' && !scope.profile.features.tasks) {
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method} does not exist in protocol version ${scope.profile.version}`,
    );
  }
}

const asJson = (value: unknown) => value as JsonObject;

export function installTaskHandlers(table: HandlerTable, tasks: TaskEngine): void {
  table.handle('tasks/get', async ({ params, scope }) => {
    requireCoreTasks(scope, 'tasks/get');
    const record = await tasks.find(params, scope, 'tasks/get');
    return scope.era === 'stateless' ? detailedTask(record) : asJson(coreTaskOf(record));
  });

  table.handle('tasks/cancel', async ({ params, scope }) => {
    requireCoreTasks(scope, 'tasks/cancel');
    const record = await tasks.find(params, scope, 'tasks/cancel');
    if (scope.era === 'stateless') {
      if (!isTerminalStatus(record.status)) await tasks.cancel(record);
      return {};
    }
    if (isTerminalStatus(record.status)) throw alreadyTerminal(record);
    const after = await tasks.cancel(record);
    if (after === undefined) throw unknownTask(record.taskId);
    // It ended another way first (completed while the cancellation was on its way).
    if (after.status !== 'cancelled') throw alreadyTerminal(after);
    return asJson(coreTaskOf(after));
  });

  table.handle('tasks/update', async ({ params, scope }) => {
    if (scope.era === 'handshake') {
      throw new ProtocolError(
        ErrorCode.MethodNotFound,
        'Method not found: tasks/update exists only in the stateless era (the tasks extension)',
      );
    }
    const responses = params.inputResponses;
    const record = await tasks.find(params, scope, 'tasks/update');
    if (!isJsonObject(responses)) {
      throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: "inputResponses" must be an object');
    }
    if (isTerminalStatus(record.status)) return {};
    const run = tasks.running(record.taskId);
    const questions = run?.questions;
    if (questions instanceof TaskInput) await questions.answer(responses);
    // Run by another process sharing the store: the answers to its questions (checked against those the
    // record holds, as that process would) go to it.
    else if (run === undefined && tasks.store.publishAnswers) {
      const asked = record.inputRequests ?? {};
      const answers: JsonObject = {};
      for (const [key, response] of Object.entries(responses)) {
        const method = asked[key]?.method;
        if (!isInputMethod(method)) continue;
        checkInputResponse(key, method, response);
        answers[key] = response;
      }
      // Kept in the store when it can (a process reconnecting to it takes them then), else only told.
      if (Object.keys(answers).length === 0) return {};
      if (tasks.store.answerInput) await tasks.store.answerInput(record.taskId, answers);
      else await tasks.store.publishAnswers(record.taskId, answers);
    }
    return {};
  });

  table.handle(
    'tasks/result',
    async ({ params, scope, ctx, session }) => {
      requireCoreTasks(scope, 'tasks/result');
      const { taskId, pollIntervalMs } = await tasks.find(params, scope, 'tasks/result');
      // While this request waits, the task's questions travel on its stream. A question outlives the
      // request that carried it (the client may answer after dropping the stream); the task's end drops it.
      const run = tasks.running(taskId);
      const questions = run?.questions;
      const detach =
        run && questions instanceof CoreTaskInput
          ? questions.attach((method, question) =>
              session.peer.request(method, question, { relatedRequestId: ctx.id, signal: run.signal }),
            )
          : undefined;
      // A task running in another process: this request carries the questions its record holds. Its
      // questions outlive it too, until the task is seen to end (then they are withdrawn, as a run's are).
      const { store } = tasks;
      const taskEnded = new AbortController();
      // The questions' signal (made for the first): the task's end, or the server's shutdown.
      let asking: MergedSignal | undefined;
      const remote =
        run === undefined && sharesInput(store)
          ? new RemoteTaskQuestions({
              store,
              taskId,
              claimMs: claimLifetime(store, pollIntervalMs),
              send: (method, question) =>
                session.peer.request(method, question, {
                  relatedRequestId: ctx.id,
                  signal: (asking ??= mergedSignal([tasks.shutdownSignal, taskEnded.signal])).signal,
                }),
              onError: tasks.onError,
            })
          : undefined;
      const waiting = mergedSignal([ctx.cancellation, tasks.shutdownSignal]);
      try {
        const ended = await tasks.ended(taskId, waiting.signal, remote && ((record) => remote.carry(record)));
        taskEnded.abort(new Error('The task ended'));
        if (ended === undefined) throw unknownTask(taskId);
        return corePayload(ended);
      } finally {
        waiting.dispose();
        // Not seen to end: its questions stay until answered, timed out, or their session closes.
        asking?.dispose();
        detach?.();
      }
    },
    { eras: ['handshake'] },
  );

  table.handle(
    'tasks/list',
    async ({ params, scope, session }) => {
      requireCoreTasks(scope, 'tasks/list');
      if (!tasks.lists(scope.principal, session)) throw tasksListUndeclared();
      const cursor = cursorParam(params) || undefined; // "" asks for the first page
      const owner = tasks.ownerOf(scope, session);
      const page = await tasks.store
        .list(owner, { ...(cursor === undefined ? {} : { cursor }), limit: tasks.pageSize })
        .catch((error: unknown) => {
          throw error instanceof InvalidTaskCursor ? invalidTaskCursor(cursor) : error;
        });
      const result: JsonObject = { tasks: page.records.map((record) => asJson(coreTaskOf(record))) };
      if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
      return result;
    },
    { eras: ['handshake'] },
  );
}
