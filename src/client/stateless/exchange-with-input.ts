/**
 * Multi round-trip requests (2026-07-28, client side). When `tools/call`, `prompts/get` or `resources/read`
 * answers `resultType: "input_required"`, each of its `inputRequests` is answered through the client's
 * handlers, and the same method and params are sent again (a new request, so a new id) with the
 * `inputResponses` and the `requestState` exactly as received (none when the result had none), until a
 * complete result arrives or the round limit is passed.
 *
 * Timeout, progress and abort options apply to the whole exchange: one deadline covers every round and
 * the time the handlers take; progress of every round reaches `onProgress`; aborting stops whatever is
 * under way (a request in flight is cancelled on the wire, a handler sees its signal abort).
 * @module
 */
import { followSignal } from '../../protocol/engine/cancellation.js';
import { requestSignal } from '../../protocol/engine/merged-signal.js';
import type { RequestOptions } from '../../protocol/engine/peer.js';
import { LocalErrorCode, ToolwireError } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import { isJsonObject, wireObject, withMember, type JsonObject } from '../../protocol/jsonrpc.js';
import type { ProgressParams } from '../../protocol/types/lifecycle.js';
import { ClientError } from '../client-error.js';
import { answerInputRequest, type ClientHandlers, type HandlerContext } from '../client-handlers.js';
import type { ExchangeOptions } from '../exchange-options.js';
import { resultTypeOf } from './plain-result.js';

/** The methods a server may answer with `input_required`. */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
]);

export interface Exchange {
  /** The final (complete, or unknown-type) result. */
  result: JsonObject;
  /** How many `input_required` results were answered on the way (0: the first answer was final). */
  rounds: number;
}

/** What an exchange takes from its client when the caller gives nothing. */
export interface ExchangeDefaults {
  defaultTimeout?: number;
  maxInputRounds?: number;
  /**
   * Aborts when the connection closes: the exchange ends at once with its reason, even while handlers answer
   * its questions (they see their signal abort, and what they answer later is dropped).
   */
  closed?: AbortSignal;
}

/** Sends the request once (with whatever `_meta` the era needs). */
export type RoundSender = (params: JsonObject, options: RequestOptions) => Promise<JsonObject>;

/**
 * Answers one input request in the stateless era: through the handler; without one, an elicitation is
 * declined and anything else is a ClientError CAPABILITY_NOT_SUPPORTED.
 */
export async function answerInStatelessEra(
  method: string,
  params: JsonObject,
  handlers: ClientHandlers,
  ctx: HandlerContext,
): Promise<JsonObject> {
  const answer = await answerInputRequest(method, params, handlers, ctx);
  if (answer) return wireObject(answer);
  if (method === 'elicitation/create') return { action: 'decline' };
  throw new ClientError(
    LocalErrorCode.CapabilityNotSupported,
    `The server asked for ${echoedName(method)}, which this client has no handler for`,
    { details: { method, params } },
  );
}

type InputRequest = { method: string; params: JsonObject };

function readInputRequired(
  method: string,
  result: JsonObject,
): { requests: [string, InputRequest][]; state?: string } {
  const { inputRequests, requestState } = result;
  const invalid = (why: string) =>
    new ClientError(
      LocalErrorCode.InvalidResult,
      `${method} returned an invalid input_required result: ${why}`,
      {
        details: { result },
      },
    );
  if (inputRequests === undefined && requestState === undefined) {
    throw invalid('it has neither inputRequests nor requestState');
  }
  if (requestState !== undefined && typeof requestState !== 'string')
    throw invalid('requestState is not a string');
  if (inputRequests !== undefined && !isJsonObject(inputRequests))
    throw invalid('inputRequests is not an object');
  const requests: [string, InputRequest][] = [];
  for (const [key, request] of Object.entries(inputRequests ?? {})) {
    if (!isJsonObject(request) || typeof request.method !== 'string') {
      throw invalid(`inputRequests["${echoedName(key)}"] is not a request`);
    }
    const params = isJsonObject(request.params) ? request.params : {};
    requests.push([key, { method: request.method, params }]);
  }
  return requestState === undefined ? { requests } : { requests, state: requestState };
}

/** The whole exchange's clock: one deadline, pushed back by progress when `resetTimeoutOnProgress`. */
class ExchangeClock {
  readonly #started: number;
  readonly #timeout: number;
  readonly #maxTotal: number;
  #deadline: number;

  constructor(timeout: number, maxTotal: number | undefined, started = Date.now()) {
    this.#started = started;
    this.#timeout = timeout;
    this.#maxTotal = maxTotal ?? Infinity;
    this.#deadline = Math.min(this.#started + timeout, this.#started + this.#maxTotal);
  }

  get remaining(): number {
    return this.#deadline - Date.now();
  }

  progressed(): void {
    this.#deadline = Math.min(Date.now() + this.#timeout, this.#started + this.#maxTotal);
  }

  /**
   * A round that timed out: the error names the exchange's timeout (what the caller set), not the
   * remaining budget its round was given.
   */
  explain(error: unknown): unknown {
    if (!(error instanceof ToolwireError) || error.code !== LocalErrorCode.RequestTimeout) return error;
    const details = isJsonObject(error.details) ? error.details : {};
    // Cut at its maximum: named by the exchange's (the round had what was left of it, 2999 ms of 3000).
    const max = details.maxTotalTimeout;
    if (typeof max === 'number' && max !== this.#maxTotal && Number.isFinite(this.#maxTotal)) {
      return new ClientError(
        LocalErrorCode.RequestTimeout,
        error.message.replace(/\d+ ms$/, `${this.#maxTotal} ms`),
        {
          details: { ...details, maxTotalTimeout: this.#maxTotal },
          cause: error,
        },
      );
    }
    if (details.timeout === undefined || details.timeout === this.#timeout) return error;
    const elapsed = Date.now() - this.#started;
    return new ClientError(LocalErrorCode.RequestTimeout, error.message.replace(/\d+ ms$/, `${elapsed} ms`), {
      details: { ...details, timeout: this.#timeout, elapsed },
      cause: error,
    });
  }

  roundOptions(options: ExchangeOptions & { defaultTimeout?: number }): RequestOptions {
    const { maxInputRounds: _rounds, handlers: _handlers, defaultTimeout: _default, ...rest } = options;
    const round: RequestOptions = { ...rest, timeout: Math.max(0, this.remaining) };
    if (Number.isFinite(this.#maxTotal)) {
      round.maxTotalTimeout = Math.max(0, this.#started + this.#maxTotal - Date.now());
    }
    const onProgress = options.onProgress;
    if (onProgress) {
      round.onProgress = (progress: ProgressParams) => {
        if (options.resetTimeoutOnProgress) this.progressed();
        onProgress(progress);
      };
    }
    return round;
  }
}

const OWN = { enumerable: true, writable: true, configurable: true } as const;

/** How many of one round's input requests are answered at once. */
export const MAX_CONCURRENT_INPUTS = 16;

/**
 * Answers a round's input requests, `MAX_CONCURRENT_INPUTS` at a time, each answer under its own key. One
 * that fails is left out of the responses, and the others are sent (the server asks again for what is
 * missing, as the spec says it must); when every one fails, the first (in the round's order) is thrown.
 * Before, they were answered one after another (2,000 questions relayed by a gateway took 1.6 s), and the
 * first failure dropped the answers of the rest.
 */
async function answerAll(
  requests: readonly [string, InputRequest][],
  answerOne: (request: InputRequest) => Promise<JsonObject>,
  signal: AbortSignal,
): Promise<JsonObject> {
  const outcomes: ({ ok: true; value: JsonObject } | { ok: false; error: unknown } | undefined)[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    // Once the round is over (timed out, cancelled, the connection closed), nothing more is asked.
    while (next < requests.length && !signal.aborted) {
      const index = next++;
      const [, request] = requests[index]!;
      try {
        outcomes[index] = { ok: true, value: await answerOne(request) };
      } catch (error) {
        outcomes[index] = { ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(MAX_CONCURRENT_INPUTS, requests.length) }, worker));
  const responses: JsonObject = {};
  let failure: { error: unknown } | undefined;
  for (const [index, [key]] of requests.entries()) {
    const outcome = outcomes[index];
    // Defined, not assigned: a key `__proto__` is an answer like any other.
    if (outcome?.ok) Object.defineProperty(responses, key, { ...OWN, value: outcome.value });
    else failure ??= { error: outcome?.error };
  }
  if (failure && Object.keys(responses).length === 0) throw failure.error;
  return responses;
}

/**
 * Runs the handlers for one round's input requests, within the exchange's deadline and signal, while the
 * connection is open (`closed` aborting ends the round with its reason).
 */
async function answerRound(
  requests: [string, InputRequest][],
  answer: (method: string, params: JsonObject, ctx: HandlerContext) => Promise<JsonObject>,
  clock: ExchangeClock,
  signal: AbortSignal | undefined,
  closed: AbortSignal | undefined,
): Promise<JsonObject> {
  const controller = new AbortController();
  const stop = (error: Error) => controller.abort(error);
  const timer = Number.isFinite(clock.remaining)
    ? setTimeout(
        () =>
          stop(
            new ClientError(
              LocalErrorCode.RequestTimeout,
              'The request timed out while its input requests were answered',
            ),
          ),
        Math.max(0, clock.remaining),
      )
    : undefined;
  const onAbort = () =>
    stop(
      new ClientError(LocalErrorCode.RequestCancelled, 'The request was cancelled', {
        cause: signal?.reason,
      }),
    );
  // The caller's signal may be shared by many calls, and the connection's is: each followed through one
  // listener (see followSignal).
  const onClosed = (reason: unknown) => stop(reason as Error);
  let unfollow: (() => void) | undefined;
  let unfollowClosed: (() => void) | undefined;
  if (closed?.aborted) onClosed(closed.reason);
  else if (closed) unfollowClosed = followSignal(closed, onClosed);
  if (signal?.aborted) onAbort();
  else if (signal) unfollow = followSignal(signal, onAbort);
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(controller.signal.reason as Error);
    if (controller.signal.aborted) fail();
    else controller.signal.addEventListener('abort', fail, { once: true });
  });
  try {
    const work = answerAll(
      requests,
      (request) => answer(request.method, request.params, { signal: controller.signal }),
      controller.signal,
    );
    return await Promise.race([work, aborted]);
  } finally {
    if (timer) clearTimeout(timer);
    unfollow?.();
    unfollowClosed?.();
  }
}

/**
 * Sends `params` and keeps answering `input_required` results until another result arrives. Throws
 * ClientError TOO_MANY_INPUT_ROUNDS past `maxInputRounds`, INVALID_RESULT for a malformed input_required
 * result, and whatever a handler or a round throws.
 */
export async function exchangeWithInput(
  method: string,
  params: JsonObject,
  send: RoundSender,
  answer: (method: string, params: JsonObject, ctx: HandlerContext) => Promise<JsonObject>,
  options: ExchangeOptions & { defaultTimeout?: number },
  defaults: ExchangeDefaults = {},
  sent?: { result: JsonObject; at: number },
): Promise<Exchange> {
  const timeout = options.timeout ?? options.defaultTimeout ?? defaults.defaultTimeout ?? 60_000;
  const maxRounds = options.maxInputRounds ?? defaults.maxInputRounds ?? 8;
  const started = sent?.at ?? Date.now();
  // The first round goes out with the caller's options as they are when no progress listener needs
  // the exchange's clock (progress pushes its deadline back): the engine gives it the same timeout (the
  // connection's default is the exchange's), and nearly every call ends in this one round. `sent`: that
  // round's answer and when it was sent, when the caller sent it already (the stateless channel does).
  let first = sent?.result;
  if (!first && !options.onProgress) {
    first = await send(
      params,
      options.timeout === undefined ? withMember(options, 'timeout', timeout) : options,
    );
    if (resultTypeOf(first) !== 'input_required') return { result: first, rounds: 0 };
  }
  const clock = new ExchangeClock(timeout, options.maxTotalTimeout, started);
  let retry: JsonObject = params;
  for (let rounds = 0; ; rounds++) {
    const result =
      rounds === 0 && first
        ? first
        : await send(retry, clock.roundOptions(options)).catch((error: unknown) => {
            throw clock.explain(error);
          });
    if (resultTypeOf(result) !== 'input_required') return { result, rounds };
    const { requests, state } = readInputRequired(method, result);
    if (rounds >= maxRounds) {
      throw new ClientError(
        LocalErrorCode.TooManyInputRounds,
        `${method} still asked for input after ${maxRounds} rounds; giving up (raise maxInputRounds if this is expected)`,
        { details: { result } },
      );
    }
    const signal = requestSignal(options);
    let inputResponses: JsonObject;
    try {
      inputResponses = await answerRound(requests, answer, clock, signal?.signal, defaults.closed);
    } finally {
      signal?.dispose();
    }
    if (clock.remaining <= 0) {
      throw new ClientError(
        LocalErrorCode.RequestTimeout,
        `Request ${method} timed out between input rounds`,
      );
    }
    retry = { ...params };
    if (requests.length > 0) retry.inputResponses = inputResponses;
    if (state !== undefined) retry.requestState = state;
  }
}
