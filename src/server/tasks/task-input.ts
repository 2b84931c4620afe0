/**
 * The input channel of a running task: where `ctx.elicit()`, `ctx.sample()` and `ctx.listRoots()` go
 * once a call is a task. Each question gets a key that is never used again in the task's lifetime
 * (`elicit-1`, `sample-2`, … or the handler's own), joins the task's pending `inputRequests` (the task
 * is `input_required` while any is pending) and waits until `tasks/update` brings its answer. Answers to
 * keys that are not pending are ignored; a partial set answers those questions and leaves the others
 * pending. The questions are asked once: unlike a multi round-trip request, the handler is not re-run.
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { ClientCapabilities } from '../../protocol/types/lifecycle.js';
import type { TaskInputRequest } from '../../stores/task-store.js';
import {
  inputKey,
  checkInputResponse,
  missingCapabilities,
  type InputMethod,
  type InputRequest,
} from '../input-required/input-requests.js';

export interface TaskInputHost {
  /** What the client declared on the request that created the task. */
  readonly capabilities: ClientCapabilities;
  /** The handler's signal: pending questions are dropped when it aborts. */
  readonly signal: AbortSignal;
  /** Stores the questions now pending (none: the task is working again). */
  publish(pending: Record<string, TaskInputRequest>): Promise<void>;
}

interface Pending {
  method: InputMethod;
  request: InputRequest;
  resolve(answer: JsonObject): void;
  reject(reason: unknown): void;
}

/** Tasks have no `elicitationId` either (their URL elicitations complete by `tasks/update`). */
function shape(method: InputMethod, params: JsonObject): JsonObject {
  if (method !== 'elicitation/create' || !('elicitationId' in params)) return params;
  const { elicitationId: _dropped, ...rest } = params;
  return rest;
}

export class TaskInput {
  readonly #host: TaskInputHost;
  readonly #pending = new Map<string, Pending>();
  /** Every key issued in this task's lifetime. */
  readonly #issued = new Set<string>();
  #asked = 0;

  constructor(host: TaskInputHost) {
    this.#host = host;
    host.signal.addEventListener('abort', () => this.dispose(host.signal.reason), { once: true });
  }

  /** The keys waiting for an answer. */
  get pendingKeys(): string[] {
    return [...this.#pending.keys()];
  }

  /**
   * The client's answer to this question, once `tasks/update` brings it. Rejects with -32021 when the
   * client did not declare the capability the question needs, and with the abort reason when the task
   * is cancelled or the server shuts down.
   */
  ask(method: InputMethod, params: JsonObject | undefined, name?: string): Promise<JsonObject> {
    const { signal, capabilities } = this.#host;
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    if (name !== undefined && (name === '' || this.#issued.has(name))) {
      return Promise.reject(
        new TypeError(`Input key "${name}" must be a non-empty string used once per task`),
      );
    }
    const missing = missingCapabilities(method, params, capabilities);
    if (missing) {
      return Promise.reject(
        new ProtocolError(
          ErrorCode.MissingRequiredClientCapability,
          `Server requires the ${Object.keys(missing).join(', ')} capability for this request`,
          { requiredCapabilities: missing },
        ),
      );
    }
    const key = name ?? this.#nextKey(method);
    this.#issued.add(key);
    const request: InputRequest =
      params === undefined ? { method } : { method, params: shape(method, params) };
    const answer = new Promise<JsonObject>((resolve, reject) => {
      this.#pending.set(key, { method, request, resolve, reject });
    });
    // A handler that never awaits its question must not cause an unhandled rejection.
    answer.catch(() => undefined);
    this.#host.publish(this.#snapshot()).catch((error: unknown) => this.#fail(key, error));
    return answer;
  }

  /**
   * Answers pending questions (`tasks/update`): -32602 when an answer to a pending key is not a valid
   * result of its request; answers to other keys are ignored. Resolves once the remaining questions
   * are stored, before the handler sees its answers.
   */
  async answer(responses: JsonObject): Promise<void> {
    const answered: Array<[Pending, JsonObject]> = [];
    for (const [key, response] of Object.entries(responses)) {
      const pending = this.#pending.get(key);
      if (!pending) continue;
      checkInputResponse(key, pending.method, response);
      answered.push([pending, response]);
    }
    if (answered.length === 0) return;
    for (const [key, pending] of this.#pending) {
      if (answered.some(([done]) => done === pending)) this.#pending.delete(key);
    }
    await this.#host.publish(this.#snapshot());
    for (const [pending, response] of answered) pending.resolve(response);
  }

  /** Drops every pending question (the handler ended or was aborted). */
  dispose(reason?: unknown): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const question of pending) question.reject(reason ?? new Error('The task ended'));
  }

  #nextKey(method: InputMethod): string {
    let key = inputKey(method, ++this.#asked);
    while (this.#issued.has(key)) key = inputKey(method, ++this.#asked);
    return key;
  }

  #snapshot(): Record<string, TaskInputRequest> {
    return Object.fromEntries([...this.#pending].map(([key, { request }]) => [key, request]));
  }

  #fail(key: string, error: unknown): void {
    const pending = this.#pending.get(key);
    if (!pending) return;
    this.#pending.delete(key);
    pending.reject(error);
  }
}
