/**
 * A tool call that runs as a task, as `client.callToolAsTask()` hands it out: the task's id and latest
 * status, each status as it changes (`onStatus`, or `for await` over `statuses()`), its result (the same
 * checked `CallToolResult` `callTool` would give), and cancellation. The client follows the task from its
 * creation to its end (polling at the server's `pollInterval`, and in the 2025-11-25 form listening to
 * `notifications/tasks/status` too), whether or not anyone reads the status.
 * @module
 */
import { isTerminalStatus, type TaskInfo } from '../../protocol/types/tasks.js';
import type { CallToolResult } from '../../protocol/types/tools.js';

/** Where a `callToolAsTask` call carries its handle through the links (kept by an options spread). */
export const TASK_HANDLE: unique symbol = Symbol('toolwire.taskHandle');

/** What the client gives a task handle once the server created the task. */
export interface TaskControls {
  cancel(): Promise<void>;
}

export class ToolTask {
  /** The tool called. */
  readonly name: string;
  readonly #result: Promise<CallToolResult>;
  readonly #listeners = new Set<(task: TaskInfo) => void>();
  #status: TaskInfo | undefined;
  #controls: TaskControls | undefined;
  #markStarted: () => void = () => undefined;
  /** @internal Resolves once the server created the task. */
  readonly whenStarted = new Promise<void>((resolve) => (this.#markStarted = resolve));

  /** @internal Made by the client; `result` is the call's outcome. */
  constructor(name: string, result: Promise<CallToolResult>) {
    this.name = name;
    this.#result = result;
    // Whoever never asks for the result must not see an unhandled rejection.
    result.catch(() => undefined);
  }

  /** The task's id; undefined when the server answered the call at once (no task was created). */
  get taskId(): string | undefined {
    return this.#status?.taskId;
  }

  /** The latest status the client saw; undefined when no task was created. */
  get status(): TaskInfo | undefined {
    return this.#status;
  }

  /** The tool's result once the task ends (a failed task's tool error too); rejects as `callTool` would. */
  result(): Promise<CallToolResult> {
    return this.#result;
  }

  /**
   * Asks the server to cancel the task (`tasks/cancel`); `result()` then rejects with ClientError
   * REQUEST_CANCELLED. Does nothing once the task ended or when no task was created.
   */
  async cancel(): Promise<void> {
    if (this.#controls && this.#status && !isTerminalStatus(this.#status.status))
      await this.#controls.cancel();
  }

  /** Calls `listener` with each new status (not the current one). Returns an unsubscribe. */
  onStatus(listener: (task: TaskInfo) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Each status from the current one on, until the task ends (its last status is the final one). Statuses
   * that change faster than they are read are coalesced: the latest is never lost.
   */
  async *statuses(): AsyncGenerator<TaskInfo, void, undefined> {
    let next: TaskInfo | undefined = this.#status;
    let wake: (() => void) | undefined;
    const unsubscribe = this.onStatus((task) => {
      next = task;
      wake?.();
    });
    const settled = this.#result.then(
      () => undefined,
      () => undefined,
    );
    try {
      for (;;) {
        if (next === undefined) {
          const woken = new Promise<void>((resolve) => (wake = resolve));
          if ((await Promise.race([woken.then(() => true), settled.then(() => false)])) === false) {
            if (next === undefined) return;
          }
          wake = undefined;
        }
        const task: TaskInfo = next!;
        next = undefined;
        yield task;
        if (isTerminalStatus(task.status)) return;
      }
    } finally {
      unsubscribe();
    }
  }

  /** @internal The server created the task. */
  started(task: TaskInfo, controls: TaskControls): void {
    this.#controls = controls;
    this.update(task);
    this.#markStarted();
  }

  /** @internal A status the client saw (the caller reports only changes). */
  update(task: TaskInfo): void {
    this.#status = task;
    for (const listener of this.#listeners) listener(task);
  }
}
