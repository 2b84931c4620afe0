/**
 * A new task's run, in the form of the request that started it, and whom each change of the task is told.
 *
 * - 2025-11-25: the handler's questions go to the client on a `tasks/result` stream (`core-task-input.ts`),
 *   each refused unless the client declared what it needs; each change of status (or of its message) goes
 *   to the creating session as `notifications/tasks/status`.
 * - 2026-07-28 (the tasks extension): the handler's questions wait for `tasks/update` (`task-input.ts`),
 *   the task `input_required` while any does; each change goes as `notifications/tasks` to the
 *   `subscriptions/listen` streams that name the task, this process's and (through `others`) those of the
 *   processes that share its sessions.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { TaskRecord } from '../../stores/task-store.js';
import { missingCapabilities, type InputMethod } from '../input-required/input-requests.js';
import type { RequestScope } from '../request-scope.js';
import { ServerError } from '../server-error.js';
import { CoreTaskInput } from './core-task-input.js';
import { coreTaskOf } from './core-task-wire.js';
import type { TaskCall } from './task-call.js';
import { TaskInput } from './task-input.js';
import { TaskRun, type TaskQuestions, type TaskRunHost } from './task-run.js';
import { detailedTask } from './task-wire.js';

/** A `subscriptions/listen` stream, as far as tasks are concerned. */
export interface TaskListener {
  watchesTask(taskId: string): boolean;
  notify(method: string, params: JsonObject): Promise<void>;
}

/** What a new task's run is made with, besides its record and its call. */
export interface FormRunHost {
  /** What the run needs in either form. */
  readonly runHost: Omit<TaskRunHost<TaskQuestions>, 'questions' | 'changed'>;
  /** 2025-11-25: the task's claims of its questions, on a store several processes share. */
  claims(taskId: string): { claim?: (key: string) => Promise<boolean> };
  /** 2026-07-28: the open `subscriptions/listen` streams. */
  readonly listeners: (() => Iterable<TaskListener>) | undefined;
  /** 2026-07-28: where each `notifications/tasks` goes besides this process's streams; undefined while nothing listens. */
  readonly others: (() => ((task: JsonObject) => void) | undefined) | undefined;
}

/** The run of the task `record` that `call` starts, in the call's form (its era: handshake is 2025-11-25). */
export function taskRunInForm(record: TaskRecord, call: TaskCall, host: FormRunHost): TaskRun {
  const { scope, session } = call;
  const { runHost } = host;
  return scope.era === 'handshake'
    ? new TaskRun<TaskQuestions>(record, {
        ...runHost,
        questions: (h) =>
          new CoreTaskInput({
            ...h,
            taskId: record.taskId,
            check: (method, params) => checkCapability(scope, method, params),
            ...host.claims(record.taskId),
          }),
        changed: (stored, previous) => {
          if (stored.status === previous.status && stored.statusMessage === previous.statusMessage) return;
          session.peer.notify('notifications/tasks/status', coreTaskOf(stored)).catch(() => undefined);
        },
      })
    : new TaskRun<TaskQuestions>(record, {
        ...runHost,
        changed: (stored) => tell(stored, host),
        questions: (h) =>
          new TaskInput({
            capabilities: scope.client.capabilities,
            signal: h.signal,
            publish: (pending) =>
              h.publish(
                Object.keys(pending).length > 0
                  ? { status: 'input_required', inputRequests: pending }
                  : { status: 'working', inputRequests: undefined },
              ),
          }),
      });
}

/**
 * `notifications/tasks` about an extension task, on every listen stream that names it (this process's;
 * `others` tells the processes that share its sessions, for theirs).
 */
function tell(record: TaskRecord, host: FormRunHost): void {
  const listeners = host.listeners?.();
  let task: JsonObject | undefined;
  if (listeners !== undefined) {
    for (const listener of listeners) {
      if (!listener.watchesTask(record.taskId)) continue;
      void listener.notify('notifications/tasks', (task ??= detailedTask(record)));
    }
  }
  const others = host.others?.();
  if (others) others(task ?? detailedTask(record));
}

/** Throws the ServerError the handler sees when the client did not declare what a question needs. */
function checkCapability(scope: RequestScope, method: InputMethod, params: JsonObject | undefined): void {
  const missing = missingCapabilities(method, params, scope.client.capabilities);
  const unsupported = method === 'elicitation/create' && !scope.profile.features.elicitation;
  if (missing === undefined && !unsupported) return;
  throw new ServerError(
    LocalErrorCode.CapabilityNotSupported,
    `The client did not declare the ${Object.keys(missing ?? { elicitation: {} }).join(', ')} capability, so ${method} cannot be sent`,
  );
}
