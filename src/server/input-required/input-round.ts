/**
 * One attempt of a multi round-trip request (SEP-2322) in the stateless era. The handler runs from the
 * start on every attempt; each `ctx.elicit()`, `ctx.sample()` or `ctx.listRoots()` gets a key from its
 * position in the call (`elicit-1`, `sample-2`, …) and resolves with the client's answer for that key
 * when this attempt has one (from `inputResponses`, or from earlier rounds carried in `requestState`).
 * Otherwise the ask rejects with an {@link InputRequiredSignal} and, once the handler has settled, the
 * attempt ends with an `InputRequiredResult` listing every unanswered question and a fresh, signed
 * `requestState`. A question asked under a key whose recorded answer was for a different question is
 * asked again.
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import { isPromiseLike, type MaybePromise } from '../../protocol/promise-like.js';
import type { ClientCapabilities } from '../../protocol/types/lifecycle.js';
import { digest } from './digest.js';
import {
  inputKey,
  checkInputResponse,
  methodOfKey,
  missingCapabilities,
  type InputMethod,
  type InputRequest,
  type InputRequiredResult,
} from './input-requests.js';
import type { RequestBinding, RequestState, RequestStateCodec } from './request-state.js';

/** Thrown into a handler by an ask the client has not answered yet; the call ends with `input_required`. */
export class InputRequiredSignal extends Error {
  override readonly name = 'InputRequiredSignal';
  readonly key: string;

  constructor(key: string, method: InputMethod) {
    super(`Waiting for the client's answer to ${method} (${key}); the call ends with input_required`);
    this.key = key;
  }
}

/** The stateless era has no `elicitationId` (its URL elicitations complete by the retry). */
function shape(method: InputMethod, params: JsonObject): JsonObject {
  if (method !== 'elicitation/create' || !('elicitationId' in params)) return params;
  const { elicitationId: _dropped, ...rest } = params;
  return rest;
}

function missingCapability(required: ClientCapabilities): ProtocolError {
  return new ProtocolError(
    ErrorCode.MissingRequiredClientCapability,
    `Server requires the ${Object.keys(required).join(', ')} capability for this request`,
    { requiredCapabilities: required },
  );
}

/** Marks an answer that came without a `requestState`: it answers whatever its key asks. */
const ANY_QUESTION = '*';

function invalidAnswer(key: string, what: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `Invalid params: inputResponses["${echoedName(key)}"] is not a valid ${what}`,
  );
}

/** The retry fields, which are not part of what a `requestState` is bound to. */
const RETRY_FIELDS = new Set(['inputResponses', 'requestState', '_meta']);

export interface OpenRound {
  /** The request method (`tools/call`, `prompts/get`, `resources/read`). */
  method: string;
  params: JsonObject;
  capabilities: ClientCapabilities;
  codec: RequestStateCodec;
  principal?: string;
}

interface Pending {
  question: string;
  request: InputRequest;
}

/** What a state of this request is bound to: its method and the digest of its salient params. */
async function bindingOf(options: OpenRound): Promise<RequestBinding> {
  const salient = Object.fromEntries(
    Object.entries(options.params).filter(([key]) => !RETRY_FIELDS.has(key)),
  );
  const binding: RequestBinding = { method: options.method, paramsDigest: await digest(salient) };
  if (options.principal !== undefined) binding.principal = options.principal;
  return binding;
}

export class InputRound {
  readonly #options: OpenRound;
  #binding: Promise<RequestBinding> | undefined;
  readonly #capabilities: ClientCapabilities;
  readonly #codec: RequestStateCodec;
  readonly #answers: Record<string, [string, JsonObject]>;
  // Made when the handler first asks (most calls never do).
  #pending: Map<string, Pending> | undefined;
  #checks: Array<Promise<unknown>> | undefined;
  #asked = 0;
  #named: Set<string> | undefined;
  /** What the verified `requestState` carried for the handler (`carried`). */
  readonly #carried: JsonObject | undefined;
  /** What this attempt's `requestState` carries, if it ends with input_required (`carry`). */
  #carry: JsonObject | undefined;

  private constructor(
    options: OpenRound,
    binding: Promise<RequestBinding> | undefined,
    answers: Record<string, [string, JsonObject]>,
    carried?: JsonObject,
  ) {
    this.#options = options;
    this.#binding = binding;
    this.#capabilities = options.capabilities;
    this.#codec = options.codec;
    this.#answers = answers;
    this.#carried = carried;
  }

  /** What the handler of the previous round carried in the `requestState` this attempt was opened with. */
  get carried(): JsonObject | undefined {
    return this.#carried;
  }

  /** What the `requestState` of this attempt carries to the retry, should it end with input_required. */
  carry(value: JsonObject | undefined): void {
    this.#carry = value;
  }

  /**
   * Reads this attempt's `requestState` and `inputResponses`: -32602 for a state that fails verification
   * (tampered, expired, made for another request) and for malformed answers. `inputResponses` without a
   * `requestState` answer the questions of their keys, whatever they are (a first round needs no state:
   * the client could give those answers anyway); each is checked when its question is asked.
   */
  static open(options: OpenRound): InputRound | Promise<InputRound> {
    const { params } = options;
    const responses = params.inputResponses;
    if (responses !== undefined && !isJsonObject(responses)) {
      return Promise.reject(
        new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object'),
      );
    }
    const answers: Record<string, [string, JsonObject]> = {};
    // A first attempt (no state to verify, nearly every call) opens at once, with no async step.
    if (params.requestState === undefined) {
      if (responses !== undefined) {
        for (const [key, response] of Object.entries(responses)) {
          if (isJsonObject(response)) answers[key] = [ANY_QUESTION, response];
        }
      }
      return new InputRound(options, undefined, answers);
    }
    return InputRound.#resume(options, responses, answers);
  }

  static async #resume(
    options: OpenRound,
    responses: JsonObject | undefined,
    answers: Record<string, [string, JsonObject]>,
  ): Promise<InputRound> {
    const { params } = options;
    const binding = bindingOf(options);
    const state = await options.codec.open(params.requestState, await binding);
    Object.assign(answers, state.answers);
    for (const [key, question] of Object.entries(state.asked)) {
      const response = responses?.[key];
      if (response === undefined) continue;
      const method = methodOfKey(key);
      if (method === undefined) {
        if (!isJsonObject(response)) throw invalidAnswer(key, 'an input response');
        answers[key] = [question, response]; // a named key: checked when its question is asked
        continue;
      }
      checkInputResponse(key, method, response);
      answers[key] = [question, response];
    }
    return new InputRound(options, binding, answers, state.carried);
  }

  /**
   * The client's answer to this question, or a rejection: -32021 when the client did not declare the
   * capability the question needs, an {@link InputRequiredSignal} when it has not answered yet.
   */
  ask(method: InputMethod, params: JsonObject | undefined, name?: string): Promise<JsonObject> {
    const position = ++this.#asked;
    if (name !== undefined && (name === '' || this.#named?.has(name))) {
      return Promise.reject(
        new TypeError(`Input key "${name}" must be a non-empty string used once per call`),
      );
    }
    if (name !== undefined) (this.#named ??= new Set()).add(name);
    const key = name ?? inputKey(method, position);
    const missing = missingCapabilities(method, params, this.#capabilities);
    const answer = missing ? Promise.reject(missingCapability(missing)) : this.#answer(key, method, params);
    // A handler that never awaits its ask must not cause an unhandled rejection.
    (this.#checks ??= []).push(answer.catch(() => undefined));
    return answer;
  }

  async #answer(key: string, method: InputMethod, params: JsonObject | undefined): Promise<JsonObject> {
    const request: InputRequest =
      params === undefined ? { method } : { method, params: shape(method, params) };
    const question = await digest(request);
    const known = this.#answers[key];
    if (known && (known[0] === question || known[0] === ANY_QUESTION)) {
      checkInputResponse(key, method, known[1]);
      return known[1];
    }
    (this.#pending ??= new Map()).set(key, { question, request });
    throw new InputRequiredSignal(key, method);
  }

  /**
   * Runs the handler of this attempt: its value when every question it asked was answered, otherwise an
   * `InputRequiredResult`, even when the handler caught the signal and went on. A ProtocolError from the
   * handler (e.g. -32021) is passed on.
   */
  run<T>(handler: () => MaybePromise<T>): MaybePromise<T | InputRequiredResult> {
    // Not async: a call that asked nothing (nearly all) is answered with its own value, no frame kept
    // (and at once, when the handler answered at once).
    let running: MaybePromise<T>;
    try {
      running = handler();
    } catch (error) {
      return this.#failed(error);
    }
    if (!isPromiseLike(running)) {
      const value = running;
      return this.#checks
        ? this.#settled().then<T | InputRequiredResult>(() => this.#done(value))
        : this.#done(value);
    }
    return running.then(
      (value): T | Promise<T | InputRequiredResult> =>
        this.#checks
          ? this.#settled().then<T | InputRequiredResult>(() => this.#done(value))
          : this.#done(value),
      (error: unknown) => this.#failed(error),
    );
  }

  #done<T>(value: T): T | Promise<InputRequiredResult> {
    return this.#pending === undefined ? value : this.#inputRequired();
  }

  /** The handler threw: its error, unless it was (or it caught) a wait for input. */
  #failed(error: unknown): Promise<InputRequiredResult> {
    const end = (): Promise<InputRequiredResult> =>
      error instanceof ProtocolError || this.#pending === undefined
        ? // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the handler's own error, passed on as thrown
          Promise.reject(error)
        : this.#inputRequired();
    return this.#checks ? this.#settled().then(end) : end();
  }

  async #settled(): Promise<void> {
    const checks = this.#checks ?? [];
    for (let seen = 0; seen < checks.length; seen = checks.length) {
      await Promise.all(checks.slice(seen));
    }
  }

  async #inputRequired(): Promise<InputRequiredResult> {
    const pending = [...(this.#pending ?? [])];
    const binding = await (this.#binding ??= bindingOf(this.#options));
    const state: RequestState = {
      answers: this.#answers,
      asked: Object.fromEntries(pending.map(([key, { question }]) => [key, question])),
    };
    if (this.#carry !== undefined) state.carried = this.#carry;
    const requestState = await this.#codec.seal(binding, state);
    return {
      resultType: 'input_required',
      inputRequests: Object.fromEntries(pending.map(([key, { request }]) => [key, request])),
      requestState,
    };
  }
}
