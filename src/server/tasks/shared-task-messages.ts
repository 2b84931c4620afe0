/**
 * What a task store several processes share tells this process about the tasks it runs: a task cancelled
 * through another process (its run here is cancelled; the record says so already), and the answers a
 * `tasks/update` or a `tasks/result` brought to another process for a question asked here (they wait in
 * the store until the run here takes them: when told, after a reconnection, and at each lease renewal).
 * A core task's questions are claimed before they are sent, so that one process sends each.
 * @module
 */
import { asError } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { TaskStore } from '../../stores/task-store.js';
import { RUNNER_CLAIM_MS, deliverAnswers, sharesInput, waitsForAnswers } from './remote-task-questions.js';
import type { TaskRun } from './task-run.js';

export interface SharedTaskMessagesHost {
  readonly store: TaskStore;
  /** The runs of this process, by task id. */
  readonly running: ReadonlyMap<string, TaskRun>;
  readonly shutdownSignal: AbortSignal;
  readonly onError: ((error: Error) => void) | undefined;
}

export class SharedTaskMessages {
  readonly #host: SharedTaskMessagesHost;
  /** Listening to what other processes publish, from the first task on. */
  #watching: Promise<void> | undefined;

  constructor(host: SharedTaskMessagesHost) {
    this.#host = host;
  }

  /** Listens (once) to the store's cancellations and answers; resolves at once without a shared store. */
  watch(): Promise<void> {
    const { store, shutdownSignal } = this.#host;
    if (store.onCancelled === undefined || shutdownSignal.aborted) return Promise.resolve();
    if (this.#watching) return this.#watching;
    const failed = (error: unknown) => this.#host.onError?.(asError(error));
    this.#watching = Promise.all([
      store.onCancelled((taskId) => {
        void this.#host.running.get(taskId)?.cancel().catch(failed);
      }),
      // A reconnection may have lost a message: the answers wait in the store.
      store.onAnswers?.(
        (taskId, responses) => this.takeAnswers(taskId, responses),
        () => this.takeAnswers(),
      ),
    ]).then(
      ([stop, stopAnswers]) =>
        shutdownSignal.addEventListener(
          'abort',
          () => {
            stop();
            stopAnswers?.();
          },
          { once: true },
        ),
      (error: unknown) => {
        this.#watching = undefined; // the next task tries again
        throw error;
      },
    );
    return this.#watching;
  }

  /** A core task's claims of its questions, on a store several processes share (one claimant: this run). */
  claims(taskId: string): { claim?: (key: string) => Promise<boolean> } {
    const { store } = this.#host;
    if (!sharesInput(store)) return {};
    const claimant = crypto.randomUUID();
    return {
      claim: async (key) => (await store.claimInput(taskId, [key], claimant, RUNNER_CLAIM_MS)).length > 0,
    };
  }

  /** Hands the answers given through other processes to the task here that waits for them (`taskId`: all). */
  takeAnswers(taskId?: string, published?: JsonObject): void {
    const { running, store } = this.#host;
    const runs = taskId === undefined ? [...running.values()] : [running.get(taskId)];
    for (const run of runs) {
      if (run === undefined || (taskId === undefined && !waitsForAnswers(run))) continue;
      deliverAnswers(store, run, published).catch((error: unknown) => this.#host.onError?.(asError(error)));
    }
  }
}
