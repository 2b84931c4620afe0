/**
 * The questions of a task across the processes sharing its store (one with `answerInput`, `takeAnswers`
 * and `claimInput`, as the Redis one has).
 *
 * - A 2025-11-25 `tasks/result` reaching a process that does not run its task carries the task's questions
 *   all the same (`RemoteTaskQuestions`): each time it reads the record it claims the questions pending
 *   there, sends the ones it newly holds to the client on its own stream (as the running process would:
 *   tagged with the task), and keeps the client's answer (or error) in the store for the process running
 *   the task. A claim is renewed while its request waits; a process that dies holding one lets it lapse
 *   (`claimLifetime`), and the next `tasks/result` sends the question again.
 * - The process running the task takes the answers kept for it (`deliverAnswers`): when told of them
 *   (`onAnswers`), when its subscriber reconnects (it may have missed that), and at each lease renewal.
 * @module
 */
import { ErrorCode, LocalErrorCode, ProtocolError, ToolwireError, asError } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { TaskRecord, TaskStore } from '../../stores/task-store.js';
import { isInputMethod } from '../input-required/input-requests.js';
import { CoreTaskInput, type QuestionChannel } from './core-task-input.js';
import { TaskInput } from './task-input.js';
import type { TaskRun } from './task-run.js';

/** A store whose answers and claims several processes share. */
export type SharedInputStore = TaskStore &
  Required<Pick<TaskStore, 'answerInput' | 'takeAnswers' | 'claimInput'>>;

export function sharesInput(store: TaskStore): store is SharedInputStore {
  return store.answerInput !== undefined && store.takeAnswers !== undefined && store.claimInput !== undefined;
}

/** How long a claim of a `tasks/result` elsewhere holds unless renewed, on a store without leases, in ms. */
export const CLAIM_MS = 15_000;

/**
 * How long a claim of a `tasks/result` elsewhere holds unless renewed (at each of its reads, every poll
 * interval): a task lease when the store has leases (a dead instance's claims lapse as its leases do),
 * else `CLAIM_MS`; three poll intervals at least.
 */
export function claimLifetime(store: TaskStore, pollIntervalMs = 0): number {
  const renewal = store.leaseRenewalMs;
  const lease = renewal !== undefined && renewal > 0 ? 3 * renewal : CLAIM_MS;
  return Math.max(lease, 3 * pollIntervalMs);
}
/** A claim of the process running the task: as long as it runs (it fails with that process). */
export const RUNNER_CLAIM_MS = 7 * 24 * 60 * 60_000;

export interface RemoteQuestionsHost {
  readonly store: SharedInputStore;
  readonly taskId: string;
  /** Sends one question to the client on the `tasks/result` stream. */
  readonly send: QuestionChannel;
  /** How long a claim holds; renewed at each read of the record, so longer than the poll interval. */
  readonly claimMs: number;
  readonly onError?: ((error: Error) => void) | undefined;
}

/** The questions of a task running elsewhere, carried by one `tasks/result` here. */
export class RemoteTaskQuestions {
  readonly #host: RemoteQuestionsHost;
  readonly #claimant = crypto.randomUUID();
  /** The keys sent by this request and not failed. */
  readonly #sent = new Set<string>();

  constructor(host: RemoteQuestionsHost) {
    this.#host = host;
  }

  /** One read of the record: claims its pending questions (renewing those held) and sends the new ones. */
  async carry(record: TaskRecord): Promise<void> {
    const asked = record.inputRequests;
    if (asked === undefined) return;
    const { store, taskId, claimMs } = this.#host;
    let held: string[];
    try {
      held = await store.claimInput(taskId, Object.keys(asked), this.#claimant, claimMs);
    } catch (error) {
      this.#host.onError?.(asError(error));
      return;
    }
    for (const key of held) {
      const question = asked[key];
      if (this.#sent.has(key) || !question || !isInputMethod(question.method)) continue;
      this.#sent.add(key);
      // The answer may come after this request ended (the client dropped its stream): it is kept all the same.
      this.#host.send(question.method, question.params ?? {}).then(
        (result) => this.#keep(key, { result }),
        (error: unknown) => {
          const answer = clientError(error);
          if (answer) this.#keep(key, { error: answer });
          else this.#sent.delete(key); // not sent, or the session went: the next read sends it again
        },
      );
    }
  }

  #keep(key: string, answer: JsonObject): void {
    this.#host.store.answerInput(this.#host.taskId, { [key]: answer }).catch((error: unknown) => {
      this.#sent.delete(key); // the store failed: asked again while this request waits
      this.#host.onError?.(asError(error));
    });
  }
}

/** What a failed question tells the handler: the client's error, or the request's timeout; else nothing. */
function clientError(error: unknown): JsonObject | undefined {
  if (error instanceof ProtocolError) return { ...error.toJSON() } as JsonObject;
  if (error instanceof ToolwireError && error.code === LocalErrorCode.RequestTimeout)
    return { code: ErrorCode.InternalError, message: error.message };
  return undefined;
}

/**
 * Gives a task running here the answers given through other processes: those the store keeps (it has
 * `takeAnswers`), else those `published` with the message. Resolves once they are handed over.
 */
export async function deliverAnswers(store: TaskStore, run: TaskRun, published?: JsonObject): Promise<void> {
  const { questions } = run;
  const core = questions instanceof CoreTaskInput;
  if (!core && !(questions instanceof TaskInput)) return;
  const answers = store.takeAnswers ? await store.takeAnswers(run.taskId) : published;
  if (answers === undefined || Object.keys(answers).length === 0) return;
  if (core) questions.answered(answers);
  else await questions.answer(answers);
}

/** Whether a task running here waits for answers (worth a read of the store). */
export function waitsForAnswers(run: TaskRun): boolean {
  const { questions } = run;
  if (questions instanceof CoreTaskInput) return questions.pending > 0;
  return questions instanceof TaskInput && questions.pendingKeys.length > 0;
}
