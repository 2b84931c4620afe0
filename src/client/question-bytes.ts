/**
 * What a client holds of the server's questions (their params, as JSON) at once, at most
 * (`ClientOptions.maxQuestionBytes`): those its handlers are answering, and those read and waiting their
 * turn to start (the engine's line, `PeerOptions.admitWaiting`), together.
 * @module
 */
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { INPUT_METHODS } from './client-handlers.js';

/**
 * The budget by default: the engine takes up to 1,000 requests at once, each up to the transport's message
 * size (4 MiB on stdio), and a handler waiting for a person (the gateway relaying to its caller) held them
 * all — ≈4 GB.
 */
export const DEFAULT_MAX_QUESTION_BYTES = 64 * 1024 * 1024;

const QUESTIONS: ReadonlySet<string> = new Set(INPUT_METHODS);

export class QuestionBytes {
  /** The params of the questions being answered now, in characters of JSON. */
  #answering = 0;

  /**
   * @param max the budget
   * @param waiting characters of the params of the server's requests waiting to start (`Peer.waitingBytes`)
   */
  constructor(
    private readonly max: number,
    private readonly waiting: () => number,
  ) {}

  /**
   * A question of `bytes` is about to be answered: counted until `answered`. Throws -32603 saying so when
   * it would make what the client holds more than the budget (no handler runs).
   */
  take(bytes: number): void {
    const refusal = this.#refusal(bytes, this.waiting());
    if (refusal) throw refusal;
    this.#answering += bytes;
  }

  /** A question taken of `bytes` was answered (or failed). */
  answered(bytes: number): void {
    this.#answering -= bytes;
  }

  /**
   * Whether a request of `method` with params of `bytes` may wait in the engine's line (`waiting`: what
   * waits there already): a question that would make what the client holds more than the budget is -32603
   * now. Other requests (ping) are not refused, but what they hold while they wait counts.
   */
  readonly admitWaiting = (
    message: { readonly method: string },
    bytes: number,
    waiting: number,
  ): ProtocolError | undefined => (QUESTIONS.has(message.method) ? this.#refusal(bytes, waiting) : undefined);

  #refusal(bytes: number, waiting: number): ProtocolError | undefined {
    const held = this.#answering + waiting;
    if (held + bytes <= this.max) return undefined;
    return new ProtocolError(
      ErrorCode.InternalError,
      `Internal error: the client is answering questions of ${held} bytes already and holds at most ${this.max} (this one: ${bytes} bytes); ask again once they are answered`,
    );
  }
}
