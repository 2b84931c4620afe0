/**
 * A `tools/call` that runs as a task. 2025-11-25 (SEP-1686): the client asked with `params.task`; the
 * task is stored before the handler runs and the call is answered with `{ task }` at once; the handler's
 * questions go to the client tagged with the task, on a `tasks/result` stream (`core-task-input.ts`), and
 * its progress and log messages to the session that created it, tagged too. 2026-07-28 (the tasks
 * extension): with `start: 'call'` the task is stored before the handler runs and the call is answered
 * with its flat `CreateTaskResult` at once. With
 * `start: 'handler'` the call starts as an ordinary stateless-era call (its input through multi
 * round-trip requests, its cancellation by the request's signal) and becomes a task when the handler
 * calls `ctx.startTask()`; a handler that returns first answers inline. Once a task, the handler's input
 * waits for `tasks/update`, its notifications go nowhere, and only `tasks/cancel`, expiry and shutdown
 * abort it.
 * @module
 */
import { mergedSignal } from '../../protocol/engine/merged-signal.js';
import type { RequestContext } from '../../protocol/engine/peer.js';
import { withMember, type JsonObject, type RequestId } from '../../protocol/jsonrpc.js';
import { loggingRank } from '../../protocol/types/lifecycle.js';
import { withRelatedTask } from '../../protocol/types/tasks.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import { InputRound } from '../input-required/input-round.js';
import { isInputRequired } from '../input-required/input-requests.js';
import type { RequestScope, StatelessScope } from '../request-scope.js';
import type { SessionView } from '../session-view.js';
import { callRequest, createToolContext, endProgress, type ContextHost } from '../hosted-context.js';
import type { ToolContext } from '../tool-context.js';
import type { ToolCallAnswer } from '../server-results.js';
import type { RegisteredTool } from '../tools/tool-definition.js';
import { scopedHost } from '../context-host.js';
import { createCoreTaskResult } from './core-task-wire.js';
import type { TaskRun } from './task-run.js';
import { createTaskResult } from './task-wire.js';

/** One `tools/call` the tasks feature serves. */
export interface TaskCall {
  session: SessionView;
  scope: RequestScope;
  params: JsonObject;
  tool: RegisteredTool;
  ctx: RequestContext;
  /** Runs the tool pipeline (validation, handler, result checks) with a context. */
  run: (context: ToolContext) => Promise<CallToolResult>;
  /** Shapes a call result for the request's revision. */
  shape: (result: CallToolResult) => CallToolResult;
  /** 2025-11-25: the lifetime the client asked for (`params.task.ttl`), in ms. */
  ttl?: number;
}

/** What task-call needs of the tasks feature: to store a new task for a call and track its run. */
export interface TaskStarter {
  start(call: TaskCall, controller: AbortController): Promise<TaskRun>;
  readonly shutdownSignal: AbortSignal;
}

const ignored = () => Promise.resolve();

/** The context host of a call once it is a task: input through the task, nothing sent to the client. */
function taskHost(call: TaskCall, run: TaskRun): ContextHost {
  return {
    client: call.scope.client,
    principal: call.scope.principal,
    input: (method, params, options) => run.questions.ask(method, params, options.key),
    notify: ignored,
    sendProgress: ignored,
    log: ignored,
    closeStream: () => undefined,
    startTask: () => Promise.resolve(run.taskId),
  };
}

/**
 * 2025-11-25: the context host of a task-augmented call. Its progress and log messages go to the
 * session that created it, related to the original request (a stream that may be gone: then the
 * standalone one), with the related-task `_meta`; a session that is gone drops them.
 */
function coreTaskHost(call: TaskCall, run: TaskRun): ContextHost {
  const { session, scope } = call;
  const send = (method: string, params: object, id: RequestId) =>
    session.peer
      .notify(
        method,
        withMember(
          params,
          '_meta',
          withRelatedTask('_meta' in params ? params._meta : undefined, run.taskId),
        ),
        { relatedRequestId: id },
      )
      .catch(() => undefined);
  return {
    ...taskHost(call, run),
    notify: send,
    sendProgress: (params, id) => send('notifications/progress', scope.profile.shapeProgress(params), id),
    log: (level, data, logger, id) => {
      if (scope.logLevel !== undefined && loggingRank(level) < loggingRank(scope.logLevel)) {
        return Promise.resolve();
      }
      return send(
        'notifications/message',
        logger === undefined ? { level, data } : { level, data, logger },
        id,
      );
    },
  };
}

/** The result of a call that the tasks feature serves (the decision to do so is already made). */
export async function callAsTask(call: TaskCall, tasks: TaskStarter): Promise<ToolCallAnswer> {
  const { scope } = call;
  if (scope.era === 'handshake') return startedAtCall(call, tasks);
  return call.tool.task?.start === 'handler'
    ? startedByHandler(call, scope, tasks)
    : startedAtCall(call, tasks);
}

async function startedAtCall(call: TaskCall, tasks: TaskStarter): Promise<JsonObject> {
  const controller = new AbortController();
  const run = await tasks.start(call, controller);
  const core = call.scope.era === 'handshake';
  const host = core ? coreTaskHost(call, run) : taskHost(call, run);
  const context = createToolContext(host, callRequest(call.ctx.id, run.signal, call.ctx.meta));
  const ran = Promise.resolve().then(() => call.run(context));
  // The task's progress goes on after the call was answered, and stops when the task ends.
  const ended = () => endProgress(context);
  void ran.then(ended, ended);
  void run.settle(ran, call.shape);
  return core ? createCoreTaskResult(run.record) : createTaskResult(run.record);
}

async function startedByHandler(
  call: TaskCall,
  scope: StatelessScope,
  tasks: TaskStarter,
): Promise<ToolCallAnswer> {
  const { session, params, ctx } = call;
  const round = await InputRound.open({
    method: 'tools/call',
    params,
    capabilities: scope.client.capabilities,
    codec: scope.codec,
    principal: scope.principal?.subject,
  });
  const controller = new AbortController();
  // The handler's signal, until it returns (inline, or as the task it became).
  const signal = mergedSignal([controller.signal, tasks.shutdownSignal]);
  // Until the call is a task, the request's own cancellation applies.
  const followRequest = () => controller.abort(ctx.signal.reason);
  if (ctx.signal.aborted) followRequest();
  else ctx.signal.addEventListener('abort', followRequest, { once: true });
  const inline = scopedHost(session, scope, round);
  let run: TaskRun | undefined;
  let starting: Promise<TaskRun> | undefined;
  let escalate = () => {};
  const escalated = new Promise<void>((resolve) => (escalate = resolve));
  const host: ContextHost = {
    client: inline.client,
    principal: inline.principal,
    connection: inline.connection,
    carried: inline.carried,
    carry: (value) => inline.carry?.(value),
    input: (method, p, options) =>
      run ? run.questions.ask(method, p, options.key) : inline.input(method, p, options),
    notify: (...args) => (run ? ignored() : inline.notify(...args)),
    sendProgress: (...args) => (run ? ignored() : inline.sendProgress(...args)),
    log: (...args) => (run ? ignored() : inline.log(...args)),
    closeStream: (id) => (run ? undefined : inline.closeStream(id)),
    startTask: async () => {
      starting ??= tasks.start(call, controller).then((started) => {
        run = started;
        ctx.signal.removeEventListener('abort', followRequest);
        escalate();
        return started;
      });
      return (await starting).taskId;
    },
  };
  const context = createToolContext(host, callRequest(ctx.id, signal.signal, ctx.meta));
  const outcome = Promise.resolve(round.run(() => call.run(context)));
  // Answered inline, or the task it became ended: its progress stops.
  const ended = () => {
    signal.dispose();
    endProgress(context);
  };
  void outcome.then(ended, ended);
  const settled = () => undefined;
  await Promise.race([outcome.then(settled, settled), escalated]);
  // A handler that returned without waiting for startTask() still becomes a task once it is stored.
  if (starting !== undefined) await starting.catch(settled);
  if (run === undefined) {
    ctx.signal.removeEventListener('abort', followRequest);
    const result = await outcome;
    return isInputRequired(result) ? result : call.shape(result);
  }
  void run.settle(outcome, call.shape);
  return createTaskResult(run.record);
}
