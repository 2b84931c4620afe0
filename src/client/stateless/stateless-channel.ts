/**
 * The stateless era's channel (2026-07-28, see `EraChannel`). A request as the client's methods see it:
 * served from the result cache while fresh; sent with the era's `_meta` (see `StatelessSender`);
 * `input_required` answered through the handlers where the method allows it; the result checked, cached
 * (unless it took input rounds, which are never cached), and handed back without the fields the client
 * consumes (`resultType`, the cache hint, `serverInfo`). There is no `ping`, the log level rides in
 * `_meta`, and the roots are asked for with each request that needs them (nothing to notify).
 * @module
 */
import type { RequestOptions } from '../../protocol/engine/peer.js';
import { LocalErrorCode } from '../../protocol/errors.js';
import { withMember, type JsonObject } from '../../protocol/jsonrpc.js';
import { isLoggingLevel, type Implementation, type LoggingLevel } from '../../protocol/types/lifecycle.js';
import { ClientError } from '../client-error.js';
import { withOwnHandlers, type ClientHandlers } from '../client-handlers.js';
import type { EraChannel } from '../era-channel.js';
import type { ExchangeOptions } from '../exchange-options.js';
import type { OutgoingRequest } from '../links/client-link.js';
import {
  INPUT_REQUIRED_METHODS,
  answerInStatelessEra,
  exchangeWithInput,
  type ExchangeDefaults,
} from './exchange-with-input.js';
import { checkResultType, plainResult, resultTypeOf } from './plain-result.js';
import { CACHEABLE_METHODS, ResultCache } from './result-cache.js';
import type { StatelessSender } from './stateless-sender.js';

export interface StatelessChannelOptions {
  /** Answer the server's input requests. */
  handlers: ClientHandlers;
  /** The authorization context private results are cached under (default `''`). */
  authContext?: string | (() => string);
  /** `input_required` rounds per request (default 8). */
  maxInputRounds?: number;
  /** The timeout of a request (its whole exchange) when the caller gives none, in ms. */
  defaultTimeout: number;
  /**
   * Aborts when the connection closes: ends every exchange at once, one whose handlers are answering its
   * questions too, with the signal's reason (as the requests in flight on the connection are).
   */
  closed?: AbortSignal;
}

export class StatelessChannel implements EraChannel {
  readonly era = 'stateless';
  readonly emptyCursorEnds = false;
  readonly #sender: StatelessSender;
  readonly #cache = new ResultCache();
  readonly #options: StatelessChannelOptions;
  /** The exchange's defaults (made once: every call passes them). */
  readonly #defaults: ExchangeDefaults;

  constructor(sender: StatelessSender, options: StatelessChannelOptions) {
    this.#sender = sender;
    this.#options = options;
    const { defaultTimeout, maxInputRounds, closed } = options;
    this.#defaults = {
      defaultTimeout,
      ...(maxInputRounds !== undefined && { maxInputRounds }),
      ...(closed && { closed }),
    };
  }

  get protocolVersion(): string {
    return this.#sender.version;
  }

  get serverInfo(): Implementation | undefined {
    return this.#sender.serverInfo;
  }

  readonly send = (request: OutgoingRequest): Promise<JsonObject> =>
    this.request(request.method, request.params ?? {}, request.options);

  ping(): Promise<void> {
    return Promise.reject(
      new ClientError(
        LocalErrorCode.CapabilityNotSupported,
        `ping does not exist in protocol version ${this.#sender.version}`,
      ),
    );
  }

  setLoggingLevel(level: LoggingLevel): Promise<void> {
    if (!isLoggingLevel(level)) {
      return Promise.reject(new TypeError(`Unknown logging level ${JSON.stringify(level)}`));
    }
    this.#sender.logLevel = level;
    return Promise.resolve();
  }

  rootsListChanged(): Promise<void> {
    return Promise.resolve();
  }

  forget(method: string, match?: (params: JsonObject) => boolean): void {
    this.#cache.invalidate(method, match);
  }

  listen(params: JsonObject, options: RequestOptions): Promise<JsonObject> {
    return this.#sender.request('subscriptions/listen', params, options);
  }

  get authContext(): string {
    const context = this.#options.authContext;
    return typeof context === 'function' ? context() : (context ?? '');
  }

  /**
   * One request of the era. Not async: nearly every call is one round (its first answer is final), sent
   * with the caller's options as they are and finished when it settles — no frame kept across an await,
   * no exchange set up; an `input_required` answer goes on to `exchangeWithInput` from there.
   */
  request(method: string, params: JsonObject, options: ExchangeOptions = {}): Promise<JsonObject> {
    const cacheable = CACHEABLE_METHODS.has(method);
    const authContext = cacheable ? this.authContext : '';
    const hit = cacheable ? this.#cache.get(method, params, authContext) : undefined;
    if (hit) return Promise.resolve(plainResult(hit));
    const sender = this.#sender;
    if (!INPUT_REQUIRED_METHODS.has(method)) {
      return sender
        .request(method, params, options)
        .then((result) => this.#complete(method, params, authContext, cacheable, result, 0));
    }
    // A progress listener needs the exchange's clock from the first round on (progress pushes its deadline).
    if (options.onProgress) return this.#exchange(method, params, options, authContext, cacheable);
    const timeout = options.timeout ?? this.#options.defaultTimeout;
    const at = Date.now(); // the exchange's clock starts with its first round
    // `withMember`, not a spread: on Node 20 a spread given one more member builds a new hidden class
    // each time (≈5% of a relayed call's CPU when the caller gives no timeout, as most do).
    const first = sender.request(
      method,
      params,
      options.timeout === undefined ? withMember(options, 'timeout', timeout) : options,
    );
    return first.then((result) =>
      resultTypeOf(result) === 'input_required'
        ? this.#exchange(method, params, options, authContext, cacheable, { result, at })
        : this.#complete(method, params, authContext, cacheable, result, 0),
    );
  }

  /** The rounds of an exchange that asks for input (from `first`, the first round's answer, when sent). */
  async #exchange(
    method: string,
    params: JsonObject,
    options: ExchangeOptions,
    authContext: string,
    cacheable: boolean,
    first?: { result: JsonObject; at: number },
  ): Promise<JsonObject> {
    const sender = this.#sender;
    const { handlers } = this.#options;
    const { result, rounds } = await exchangeWithInput(
      method,
      params,
      (retry, roundOptions) => sender.request(method, retry, roundOptions),
      (inputMethod, inputParams, ctx) =>
        answerInStatelessEra(inputMethod, inputParams, withOwnHandlers(handlers, options.handlers), ctx),
      options,
      this.#defaults,
      first,
    );
    return this.#complete(method, params, authContext, cacheable, result, rounds);
  }

  /** A final result: checked, cached (when it may be and took no input rounds), handed back plain. */
  #complete(
    method: string,
    params: JsonObject,
    authContext: string,
    cacheable: boolean,
    result: JsonObject,
    rounds: number,
  ): JsonObject {
    // A tool call the server runs as a task (the tasks extension): the task, marked as such.
    if (method === 'tools/call' && resultTypeOf(result) === 'task') {
      return { ...plainResult(result, false), resultType: 'task' };
    }
    checkResultType(method, result, false);
    if (cacheable && rounds === 0) this.#cache.store(method, params, authContext, result);
    return plainResult(result, cacheable);
  }
}
