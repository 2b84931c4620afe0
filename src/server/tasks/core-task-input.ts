/**
 * The questions of a 2025-11-25 task (SEP-1686): where `ctx.elicit()`, `ctx.sample()` and
 * `ctx.listRoots()` go once a handshake-era call runs as a task. A question is a request to the client,
 * tagged with the task (`_meta["io.modelcontextprotocol/related-task"]`), and the task is
 * `input_required` while any is unanswered. It travels on a `tasks/result` request of the task: the
 * spec's requestor calls `tasks/result` when it sees `input_required`, and over Streamable HTTP that
 * request's stream is the one open to carry it. Questions asked while no `tasks/result` waits are held
 * until one arrives (as the official SDKs do), then sent in the order asked.
 * @module
 */
import type { JsonObject } from '../../protocol/jsonrpc.js';
import { withRelatedTask } from '../../protocol/types/tasks.js';
import type { InputMethod } from '../input-required/input-requests.js';
import type { QuestionsHost, TaskQuestions } from './task-run.js';

/** A `tasks/result` request that can carry the task's questions: sends one request to the client on its stream. */
export type QuestionChannel = (method: InputMethod, params: JsonObject) => Promise<JsonObject>;

export interface CoreTaskInputHost extends QuestionsHost {
  readonly taskId: string;
  /** Throws (a ServerError the handler sees) when the client did not declare what the question needs. */
  check(method: InputMethod, params: JsonObject | undefined): void;
}

interface Question {
  method: InputMethod;
  params: JsonObject;
  sent: boolean;
  resolve(answer: JsonObject): void;
  reject(reason: unknown): void;
}

export class CoreTaskInput implements TaskQuestions {
  readonly #host: CoreTaskInputHost;
  readonly #questions = new Set<Question>();
  /** The `tasks/result` requests waiting now, the latest last. */
  readonly #channels: QuestionChannel[] = [];

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
    const tagged = { ...params, _meta: withRelatedTask(params?._meta, this.#host.taskId) };
    const answer = new Promise<JsonObject>((resolve, reject) => {
      const question: Question = { method, params: tagged, sent: false, resolve, reject };
      this.#questions.add(question);
      this.#publish().catch((error: unknown) => this.#settle(question, error));
      this.#send(question);
    });
    // A handler that never awaits its question must not cause an unhandled rejection.
    answer.catch(() => undefined);
    return answer;
  }

  /** A `tasks/result` request waits: it carries the held questions, and later ones, until it ends. */
  attach(channel: QuestionChannel): () => void {
    this.#channels.push(channel);
    for (const question of this.#questions) this.#send(question);
    return () => {
      const at = this.#channels.lastIndexOf(channel);
      if (at >= 0) this.#channels.splice(at, 1);
    };
  }

  dispose(reason?: unknown): void {
    const questions = [...this.#questions];
    this.#questions.clear();
    for (const question of questions) question.reject(reason ?? new Error('The task ended'));
  }

  #send(question: Question): void {
    const channel = this.#channels.at(-1);
    if (question.sent || channel === undefined) return;
    question.sent = true;
    channel(question.method, question.params).then(
      (answer) => this.#settle(question, undefined, answer),
      (error: unknown) => this.#settle(question, error),
    );
  }

  /** A question is answered (or failed): the task is `working` again once none is left. */
  #settle(question: Question, error: unknown, answer?: JsonObject): void {
    if (!this.#questions.delete(question)) return;
    const done = () => (error === undefined ? question.resolve(answer!) : question.reject(error));
    if (this.#questions.size > 0 || this.#host.signal.aborted) return done();
    // The handler sees its answer once the task says `working` again.
    this.#publish().then(done, done);
  }

  #publish(): Promise<void> {
    return this.#host.publish(
      this.#questions.size > 0
        ? { status: 'input_required', statusMessage: 'Waiting for input from the client' }
        : { status: 'working', statusMessage: undefined },
    );
  }
}
