/**
 * One task whose handler runs in this process, in either form of tasks: its record's changes (written
 * in order, `lastUpdatedAt` with each), its questions to the client, cooperative cancellation, expiry,
 * and the end of its handler, which settles the task. A tool result settles it `completed` (in the
 * 2025-11-25 form one with `isError: true` settles it `failed`, keeping the result, as SEP-1686 asks); a
 * protocol error `failed` with that error; anything else that escaped the tool pipeline, or a server that
 * shut down first, `failed` with -32603. A terminal record never changes again, so whatever the handler
 * does after `tasks/cancel` is not recorded.
 * @module
 */
import { mergedSignal, type MergedSignal } from '../../protocol/engine/merged-signal.js';
import { ErrorCode, ProtocolError, asError, errorMessage } from '../../protocol/errors.js';
import { wireObject, type JsonObject } from '../../protocol/jsonrpc.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import {
  isTerminalStatus,
  type TaskChange,
  type TaskRecord,
  type TaskStore,
} from '../../stores/task-store.js';
import {
  isInputRequired,
  type InputMethod,
  type InputRequiredResult,
} from '../input-required/input-requests.js';

/** Where a task's handler sends its questions (`ctx.elicit()`, …) and gets the answers. */
export interface TaskQuestions {
  ask(method: InputMethod, params: JsonObject | undefined, name?: string): Promise<JsonObject>;
  /** Drops every pending question (the handler ended or was aborted). */
  dispose(reason?: unknown): void;
}

/** What a task's question channel is made with. */
export interface QuestionsHost {
  /** The handler's signal: pending questions are dropped when it aborts. */
  readonly signal: AbortSignal;
  /** Records the questions now pending (`input_required` while any is), after every change before it. */
  publish(change: TaskChange): Promise<void>;
}

export interface TaskRunHost<Q extends TaskQuestions> {
  readonly store: TaskStore;
  /** Makes the task's question channel. */
  readonly questions: (host: QuestionsHost) => Q;
  /** Aborts the handler (its signal also follows `shutdownSignal`). */
  readonly controller: AbortController;
  readonly shutdownSignal: AbortSignal;
  /** The run has ended (settled, cancelled or expired): stop tracking it. */
  done(run: TaskRun<Q>): void;
  /** The record changed (as stored): e.g. to tell the client its status. */
  changed?(record: TaskRecord, previous: TaskRecord): void;
  /** Errors that reach no caller (a store that fails while the handler runs in the background). */
  onError?(error: Error): void;
}

/** What a task's handler ends with: a call result, or (when it asked for input before it became a task without waiting) an `InputRequiredResult`. */
export type TaskOutcome = CallToolResult | InputRequiredResult;

const internalError = (message: string) => ({ code: ErrorCode.InternalError, message });

/** The message a `failed` task shows for a tool result with `isError`: its first text, in one line. */
function toolErrorMessage(result: JsonObject): string {
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const first = content.find(
    (block): block is { text: string } =>
      typeof block === 'object' && block !== null && typeof (block as { text?: unknown }).text === 'string',
  );
  const text = first?.text.replace(/\s+/g, ' ').trim() ?? '';
  return text === '' ? 'The tool returned an error' : text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

export class TaskRun<Q extends TaskQuestions = TaskQuestions> {
  /** The record as created (what `CreateTaskResult` shows). */
  readonly record: TaskRecord;
  readonly questions: Q;
  /** Resolves once the run has ended and its last change is stored. */
  readonly ended: Promise<void>;
  readonly #host: TaskRunHost<Q>;
  /** The handler's signal: the task's own controller, or the server's shutdown. */
  readonly #signal: MergedSignal;
  #writes: Promise<unknown> = Promise.resolve();
  #last: TaskRecord;
  #ended = false;
  #markEnded: () => void = () => undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(record: TaskRecord, host: TaskRunHost<Q>) {
    this.record = record;
    this.#last = record;
    this.#host = host;
    this.#signal = mergedSignal([host.controller.signal, host.shutdownSignal]);
    this.ended = new Promise((resolve) => (this.#markEnded = resolve));
    this.questions = host.questions({ signal: this.#signal.signal, publish: (change) => this.write(change) });
    if (record.ttlMs !== null) {
      // The record is gone after its ttl: its handler has nobody left to answer.
      this.#timer = setTimeout(() => this.#end(new Error('The task expired')), record.ttlMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  get taskId(): string {
    return this.record.taskId;
  }

  /** The handler's signal: aborted by `tasks/cancel`, expiry and server shutdown. */
  get signal(): AbortSignal {
    return this.#signal.signal;
  }

  /** Changes the record, after every change asked for before; a task that is gone ends the run. */
  write(change: TaskChange): Promise<void> {
    const write = this.#writes.then(async () => {
      const now = new Date().toISOString();
      const stored = await this.#host.store.update(this.taskId, { ...change, lastUpdatedAt: now });
      if (stored === undefined) {
        this.#end(new Error('The task no longer exists'));
        return;
      }
      const previous = this.#last;
      this.#last = stored;
      // A terminal record refused the change.
      if (!isTerminalStatus(previous.status)) this.#host.changed?.(stored, previous);
    });
    this.#writes = write.catch(() => undefined);
    return write;
  }

  /** `tasks/cancel`: the task is `cancelled` at once, then its handler's signal is aborted. */
  async cancel(): Promise<void> {
    await this.write({
      status: 'cancelled',
      statusMessage: 'Cancelled by the client',
      inputRequests: undefined,
    });
    this.#end(new Error('The task was cancelled'));
  }

  /**
   * The task ended without this run (another process settled it, finding its lease run out): the
   * handler's signal aborts with `reason`, and nothing it does next is recorded.
   */
  abandon(reason: Error): void {
    this.#end(reason);
  }

  /** Waits for the handler's outcome and records it. Never rejects (failures go to `onError`). */
  async settle(
    outcome: Promise<TaskOutcome>,
    shape: (result: CallToolResult) => CallToolResult,
  ): Promise<void> {
    let change: TaskChange;
    try {
      const value = await outcome;
      change = isInputRequired(value)
        ? this.#failed(
            internalError('The tool asked for input before it became a task and did not wait for the answer'),
          )
        : this.#finished(wireObject(shape(value)));
    } catch (error) {
      change = this.#failure(error);
    }
    // Cancelled, expired or gone: the record already says so (or is no more).
    const ended = this.#ended;
    this.#end();
    if (ended) return;
    try {
      await this.write(change);
    } catch (error) {
      this.#host.onError?.(asError(error));
    } finally {
      this.#markEnded();
    }
  }

  #finished(result: JsonObject): TaskChange {
    // SEP-1686 (2025-11-25): a tool result with isError ends its task failed; the extension: completed.
    if (this.record.revision === '2025-11-25' && result.isError === true) {
      return { status: 'failed', result, statusMessage: toolErrorMessage(result), inputRequests: undefined };
    }
    return { status: 'completed', result, inputRequests: undefined };
  }

  #failure(error: unknown): TaskChange {
    if (this.#host.shutdownSignal.aborted) {
      return this.#failed(internalError('The server shut down before the task finished'));
    }
    if (error instanceof ProtocolError) return this.#failed(error.toJSON());
    return this.#failed(internalError(`Internal error: ${errorMessage(error)}`));
  }

  #failed(error: { code: number; message: string; data?: unknown }): TaskChange {
    return { status: 'failed', error, statusMessage: error.message, inputRequests: undefined };
  }

  /** Stops the run: no timer, no pending questions, the handler aborted (when a reason is given). */
  #end(reason?: Error): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (reason !== undefined && !this.#host.controller.signal.aborted) this.#host.controller.abort(reason);
    this.#signal.dispose(); // a run that ended no longer follows the server's shutdown
    this.questions.dispose(reason);
    if (this.#ended) return;
    this.#ended = true;
    this.#host.done(this);
    // Ended by cancellation, expiry or a record that is gone: its last write is already under way.
    if (reason !== undefined) void this.#writes.then(this.#markEnded);
  }
}
