/**
 * `requestState`, the opaque string a stateless-era server hands the client with an
 * `InputRequiredResult` and gets back on the retry (SEP-2322). The client is not trusted with it: the
 * payload is bound to the request (method and a digest of its params), may be bound to a principal,
 * expires, and carries an HMAC-SHA256 over all of it. Format: `base64url(JSON payload) "." base64url(MAC)`.
 *
 * The key comes from the `requestStateSecret` server option; without one, each process draws a random
 * key, so servers behind a load balancer must share a secret or a retry that lands on another process
 * is refused.
 * @module
 */
import { ErrorCode, LocalErrorCode, ProtocolError } from '../../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import { ServerError } from '../server-error.js';
import { base64url, fromBase64url, utf8 } from './digest.js';

/** Default lifetime of a `requestState`: ten minutes. */
export const DEFAULT_REQUEST_STATE_TTL_MS = 10 * 60 * 1000;

export interface RequestStateOptions {
  /** The HMAC key (a string is taken as UTF-8). Default: random per process. */
  secret?: string | Uint8Array;
  /** How long a state stays valid, in ms (default ten minutes). */
  ttlMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

/** What a state is bound to: it is refused on any other request. */
export interface RequestBinding {
  method: string;
  /** Digest of the request's params without `inputResponses`, `requestState` and `_meta`. */
  paramsDigest: string;
  /** The authenticated caller, when there is one. */
  principal?: string;
}

/** What a verified state says. */
export interface RequestState {
  /** Answers of earlier rounds: key → [digest of the question asked, the client's answer]. */
  answers: Record<string, [string, JsonObject]>;
  /** The questions of the round that produced this state: key → digest of the question. */
  asked: Record<string, string>;
  /** What the handler of that round carried to the retry (`ctx.carry()`), when it did. */
  carried?: JsonObject;
}

interface Payload {
  v: 1;
  m: string;
  d: string;
  p?: string;
  e: number;
  a: Record<string, [string, JsonObject]>;
  k: Record<string, string>;
  c?: JsonObject;
}

export type InvalidStateReason = 'malformed' | 'forged' | 'expired' | 'mismatch';

export function invalidRequestState(reason: InvalidStateReason): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: invalid requestState', { reason });
}

const HMAC = { name: 'HMAC', hash: 'SHA-256' } as const;

function importKey(secret: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', secret, HMAC, false, ['sign', 'verify']);
}

let processKey: Promise<CryptoKey> | undefined;

/** The random key of this process, drawn once. */
function defaultKey(): Promise<CryptoKey> {
  return (processKey ??= importKey(crypto.getRandomValues(new Uint8Array(32))));
}

function isPayload(value: unknown): value is Payload {
  return (
    isJsonObject(value) &&
    value.v === 1 &&
    typeof value.m === 'string' &&
    typeof value.d === 'string' &&
    (value.p === undefined || typeof value.p === 'string') &&
    typeof value.e === 'number' &&
    isJsonObject(value.a) &&
    Object.values(value.a).every(
      (entry) => Array.isArray(entry) && typeof entry[0] === 'string' && isJsonObject(entry[1]),
    ) &&
    isJsonObject(value.k) &&
    Object.values(value.k).every((entry) => typeof entry === 'string') &&
    (value.c === undefined || isJsonObject(value.c))
  );
}

export class RequestStateCodec {
  readonly #key: Promise<CryptoKey>;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: RequestStateOptions = {}) {
    const { secret } = options;
    if (secret === undefined) {
      this.#key = defaultKey();
    } else {
      const bytes = typeof secret === 'string' ? utf8(secret) : new Uint8Array(secret);
      if (bytes.length === 0) {
        throw new ServerError(LocalErrorCode.InvalidDefinition, 'requestStateSecret must not be empty');
      }
      this.#key = importKey(bytes);
    }
    this.#ttlMs = options.ttlMs ?? DEFAULT_REQUEST_STATE_TTL_MS;
    this.#now = options.now ?? (() => Date.now());
  }

  /** A fresh state for `binding`, valid for the configured lifetime from now. */
  async seal(binding: RequestBinding, state: RequestState): Promise<string> {
    const payload: Payload = {
      v: 1,
      m: binding.method,
      d: binding.paramsDigest,
      e: this.#now() + this.#ttlMs,
      a: state.answers,
      k: state.asked,
    };
    if (binding.principal !== undefined) payload.p = binding.principal;
    if (state.carried !== undefined) payload.c = state.carried;
    const body = base64url(utf8(JSON.stringify(payload)));
    const mac = await crypto.subtle.sign(HMAC, await this.#key, utf8(body));
    return `${body}.${base64url(new Uint8Array(mac))}`;
  }

  /** Verifies a state received on `binding`; throws -32602 "invalid requestState" when it does not hold. */
  async open(token: unknown, binding: RequestBinding): Promise<RequestState> {
    if (typeof token !== 'string') throw invalidRequestState('malformed');
    const [body, mac, ...rest] = token.split('.');
    const signature = mac === undefined ? undefined : fromBase64url(mac);
    if (body === undefined || signature === undefined || rest.length > 0) {
      throw invalidRequestState('malformed');
    }
    if (!(await crypto.subtle.verify(HMAC, await this.#key, signature, utf8(body)))) {
      throw invalidRequestState('forged');
    }
    const bytes = fromBase64url(body);
    let payload: unknown;
    try {
      payload = bytes && (JSON.parse(new TextDecoder().decode(bytes)) as unknown);
    } catch {
      throw invalidRequestState('malformed');
    }
    if (!isPayload(payload)) throw invalidRequestState('malformed');
    if (!(this.#now() < payload.e)) throw invalidRequestState('expired');
    if (
      payload.m !== binding.method ||
      payload.d !== binding.paramsDigest ||
      payload.p !== binding.principal
    ) {
      throw invalidRequestState('mismatch');
    }
    const state: RequestState = { answers: payload.a, asked: payload.k };
    if (payload.c !== undefined) state.carried = payload.c;
    return state;
  }
}

const codecs = new WeakMap<object, RequestStateCodec>();

/** The codec of a server, made on first use from its options (one per options object). */
export function requestStateCodec(options: {
  requestStateSecret?: string | Uint8Array;
  requestStateTtlMs?: number;
}): RequestStateCodec {
  let codec = codecs.get(options);
  if (!codec) {
    codec = new RequestStateCodec({ secret: options.requestStateSecret, ttlMs: options.requestStateTtlMs });
    codecs.set(options, codec);
  }
  return codec;
}
