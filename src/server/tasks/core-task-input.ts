/**
 * The questions of a 2025-11-25 task (SEP-1686): where `ctx.elicit()`, `ctx.sample()` and
 * `ctx.listRoots()` go once a handshake-era call runs as a task. A question is a request to the client,
 * tagged with the task (`_meta["io.modelcontextprotocol/related-task"]`), and the task is
 * `input_required` while any is unanswered. It travels on a `tasks/result` request of the task: the
 * spec's requestor calls `tasks/result` when it sees `input_required`, and over Streamable HTTP that
 * request's stream is the one open to carry it. Questions asked while no `tasks/result` waits are held
 * until one arrives (as the official SDKs do), then sent in the order asked.
 *
 * Each question is also recorded in the task's `inputRequests` (by key: `elicit-1`, …), so that a
 * `tasks/result` reaching another process sharing the store carries it too (`RemoteTaskQuestions`). On
 * such a store a question is sent by whoever claims it first (`claim`), and an answer given through another
 * process comes back from the store (`answered`).
 * @module
 */
import { ProtocolError } from '../../protocol/errors.js';
import { isJsonObject, withMember, type JsonObject } from '../../protocol/jsonrpc.js';
import { withRelatedTask } from '../../protocol/types/tasks.js';
import { inputKey, type InputMethod } from '../input-required/input-requests.js';
import type { QuestionsHost, TaskQuestions } from './task-run.js';

/** A `tasks/result` request that can carry the task's questions: sends one request to the client on its stream. */
export type QuestionChannel = (method: InputMethod, params: JsonObject) => Promise<JsonObject>;

export interface CoreTaskInputHost extends QuestionsHost {
  readonly taskId: string;
  /** Throws (a ServerError the handler sees) when the client did not declare what the question needs. */
  check(method: InputMethod, params: JsonObject | undefined): void;
  /**
   * On a store several processes share: resolves with whether this process may send the recorded question
   * `key` (no other claimed it). Undefined: always.
   */
  claim?(key: string): Promise<boolean>;
}

interface Question {
  key: string;
  method: InputMethod;
  params: JsonObject;
  /** In the record's `inputRequests`: another process may carry it from now on. */
  recorded: boolean;
  sent: boolean;
  resolve(answer: JsonObject): void;
  reject(reason: unknown): void;
}

export class CoreTaskInput implements TaskQuestions {
  readonly #host: CoreTaskInputHost;
  readonly #questions = new Map<string, Question>();
  /** The `tasks/result` requests waiting now, the latest last. */
  readonly #channels: QuestionChannel[] = [];
  #asked = 0;

  constructor(host: CoreTaskInputHost) {
    this.#host = host;
    host.signal.addEventListener('abort', () => this.dispose(host.signal.reason), { once: true });
  }

  /** Questions not answered yet (sent or held). */
  get pending(): number {
    return this.#questions.size;
  }

  ask(method: InputMethod, params: JsonObject | undefined): Promise<JsonObject> {
    const { signal } = this.#host;
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    try {
      this.#host.check(method, params);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const tagged = withMember(params, '_meta', withRelatedTask(params?._meta, this.#host.taskId));
    const key = inputKey(method, ++this.#asked);
    const answer = new Promise<JsonObject>((resolve, reject) => {
      const question: Question = {
        key,
        method,
        params: tagged,
        recorded: false,
        sent: false,
        resolve,
        reject,
      };
      this.#questions.set(key, question);
      this.#publish().then(
        () => {
          question.recorded = true;
          this.#send(question);
        },
        (error: unknown) => this.#settle(question, error),
      );
    });
    // A handler that never awaits its question must not cause an unhandled rejection.
    answer.catch(() => undefined);
    return answer;
  }

  /** A `tasks/result` request waits: it carries the held questions, and later ones, until it ends. */
  attach(channel: QuestionChannel): () => void {
    this.#channels.push(channel);
    for (const question of this.#questions.values()) this.#send(question);
    return () => {
      const at = this.#channels.lastIndexOf(channel);
      if (at >= 0) this.#channels.splice(at, 1);
    };
  }

  /**
   * Answers given through another process (a shared store's `takeAnswers`): by key, `{ result }` or the
   * client's `{ error }`. Keys of questions not pending are ignored.
   */
  answered(answers: JsonObject): void {
    for (const [key, answer] of Object.entries(answers)) {
      const question = this.#questions.get(key);
      if (!question || !isJsonObject(answer)) continue;
      const { result, error } = answer;
      if (isJsonObject(result)) this.#settle(question, undefined, result);
      else if (isJsonObject(error) && typeof error.code === 'number' && typeof error.message === 'string')
        this.#settle(question, new ProtocolError(error.code, error.message, error.data));
    }
  }

  dispose(reason?: unknown): void {
    const questions = [...this.#questions.values()];
    this.#questions.clear();
    for (const question of questions) question.reject(reason ?? new Error('The task ended'));
  }

  #send(question: Question): void {
    const channel = this.#channels.at(-1);
    if (question.sent || !question.recorded || channel === undefined) return;
    question.sent = true;
    const claim = this.#host.claim?.(question.key) ?? Promise.resolve(true);
    claim.then(
      (mine) => {
        // Another process sends it (a later `tasks/result` here tries again, once that claim lapsed).
        if (!mine) question.sent = false;
        else
          channel(question.method, question.params).then(
            (answer) => this.#settle(question, undefined, answer),
            (error: unknown) => this.#settle(question, error),
          );
      },
      (error: unknown) => this.#settle(question, error),
    );
  }

  /** A question is answered (or failed): the task is `working` again once none is left. */
  #settle(question: Question, error: unknown, answer?: JsonObject): void {
    if (this.#questions.get(question.key) !== question) return;
    this.#questions.delete(question.key);
    const done = () => (error === undefined ? question.resolve(answer!) : question.reject(error));
    if (this.#questions.size > 0 || this.#host.signal.aborted) return done();
    // The handler sees its answer once the task says `working` again.
    this.#publish().then(done, done);
  }

  #publish(): Promise<void> {
    if (this.#questions.size === 0)
      return this.#host.publish({ status: 'working', statusMessage: undefined, inputRequests: undefined });
    const inputRequests = Object.fromEntries(
      [...this.#questions].map(([key, { method, params }]) => [key, { method, params }]),
    );
    return this.#host.publish({
      status: 'input_required',
      statusMessage: 'Waiting for input from the client',
      inputRequests,
    });
  }
}
