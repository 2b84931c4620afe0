/**
 * One task whose handler runs in this process: its record's changes (written in order, `lastUpdatedAt`
 * with each), its input channel, cooperative cancellation, expiry, and the end of its handler, which
 * settles the task: `completed` with the result (a tool result with `isError: true` too), `failed` with
 * the JSON-RPC error a protocol error carries (-32603 for anything else that escaped the tool pipeline,
 * and when the server shut down first). A terminal record never changes again, so whatever the handler
 * does after `tasks/cancel` is not recorded.
 * @module
 */
import { ErrorCode, ProtocolError, asError, errorMessage } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { ClientCapabilities } from '../../protocol/types/lifecycle.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import type { TaskChange, TaskRecord, TaskStore } from '../../stores/task-store.js';
import { isInputRequired, type InputRequiredResult } from '../input-required/input-requests.js';
import { TaskInput } from './task-input.js';

export interface TaskRunHost {
  readonly store: TaskStore;
  /** What the client declared on the request that created the task. */
  readonly capabilities: ClientCapabilities;
  /** Aborts the handler (its signal also follows `shutdownSignal`). */
  readonly controller: AbortController;
  readonly shutdownSignal: AbortSignal;
  /** The run has ended (settled, cancelled or expired): stop tracking it. */
  done(run: TaskRun): void;
  /** Errors that reach no caller (a store that fails while the handler runs in the background). */
  onError?(error: Error): void;
}

/** What a task's handler ends with: a call result, or (when it asked for input before it became a task without waiting) an `InputRequiredResult`. */
export type TaskOutcome = CallToolResult | InputRequiredResult;

const internalError = (message: string) => ({ code: ErrorCode.InternalError, message });

export class TaskRun {
  /** The record as created (what `CreateTaskResult` shows). */
  readonly record: TaskRecord;
  readonly input: TaskInput;
  readonly #host: TaskRunHost;
  readonly #signal: AbortSignal;
  #writes: Promise<unknown> = Promise.resolve();
  #ended = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(record: TaskRecord, host: TaskRunHost) {
    this.record = record;
    this.#host = host;
    this.#signal = AbortSignal.any([host.controller.signal, host.shutdownSignal]);
    this.input = new TaskInput({
      capabilities: host.capabilities,
      signal: this.#signal,
      publish: (pending) => {
        const waiting = Object.keys(pending).length > 0;
        return this.write(
          waiting
            ? { status: 'input_required', inputRequests: pending }
            : { status: 'working', inputRequests: undefined },
        );
      },
    });
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
    return this.#signal;
  }

  /** Changes the record, after every change asked for before; a task that is gone ends the run. */
  write(change: TaskChange): Promise<void> {
    const write = this.#writes.then(async () => {
      const now = new Date().toISOString();
      const stored = await this.#host.store.update(this.taskId, { ...change, lastUpdatedAt: now });
      if (stored === undefined) this.#end(new Error('The task no longer exists'));
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

  /** Waits for the handler's outcome and records it. Never rejects (failures go to `onError`). */
  async settle(outcome: Promise<TaskOutcome>, shape: (result: CallToolResult) => JsonObject): Promise<void> {
    let change: TaskChange;
    try {
      const value = await outcome;
      change = isInputRequired(value)
        ? this.#failed(
            internalError('The tool asked for input before it became a task and did not wait for the answer'),
          )
        : { status: 'completed', result: shape(value), inputRequests: undefined };
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
    }
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
    this.input.dispose(reason);
    if (this.#ended) return;
    this.#ended = true;
    this.#host.done(this);
  }
}
