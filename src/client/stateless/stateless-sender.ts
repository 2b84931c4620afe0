/**
 * Sends requests in the stateless era (2026-07-28), client side. Every request carries the protocol
 * version, the client's capabilities and info, and the log level the user chose, in `_meta` (added here,
 * before the era-agnostic engine sends it). A -32022 whose `supported` list names another version this
 * client speaks switches to it and retries once. Results come back raw (their `resultType` is the
 * caller's to check, see `plain-result.ts`); the server's info in their `_meta` is noted.
 * @module
 */
import type { Peer, RequestOptions } from '../../protocol/engine/peer.js';
import { assignMembers, isJsonObject, withMember, type JsonObject } from '../../protocol/jsonrpc.js';
import { serializeOnce } from '../../protocol/json-text.js';
import { STATELESS_REVISIONS } from '../../protocol/revisions/index.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../../protocol/types/lifecycle.js';
import { META } from '../../protocol/types/stateless.js';
import { pickStatelessVersion, statelessMeta, unsupportedVersionList } from './stateless-meta.js';

const asObject = (value: unknown): JsonObject => (isJsonObject(value) ? value : {});

export interface StatelessIdentity {
  info: Implementation;
  capabilities: ClientCapabilities;
}

export class StatelessSender {
  readonly #peer: Peer;
  readonly #identity: StatelessIdentity;
  readonly #spoken: readonly string[];
  #version: string;
  /** Sent as `_meta` logLevel when set; the server sends no log messages otherwise. */
  logLevel: LoggingLevel | undefined;
  /** The server's latest self-description (from any result's `_meta`). */
  serverInfo: Implementation | undefined;
  #shared: { version: string; logLevel: LoggingLevel | undefined; meta: JsonObject } | undefined;

  constructor(
    peer: Peer,
    version: string,
    identity: StatelessIdentity,
    spoken: readonly string[] = STATELESS_REVISIONS,
  ) {
    this.#peer = peer;
    this.#version = version;
    this.#identity = identity;
    this.#spoken = spoken;
  }

  get version(): string {
    return this.#version;
  }

  meta(): JsonObject {
    const { capabilities, info } = this.#identity;
    return statelessMeta(this.#version, capabilities, info, this.logLevel);
  }

  /**
   * Sends one request with the era's `_meta`; on -32022 naming another version both sides speak, switches
   * to it and retries once (with a new request id). Resolves with the raw result (its `resultType` is the
   * caller's to check); notes the server's info.
   */
  request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    // A promise chain, not an async function: every stateless-era request passes here.
    return this.#send(method, params, options).then(this.#noted, (error: unknown) => {
      const next = pickStatelessVersion(unsupportedVersionList(error), this.#spoken, this.#version);
      if (next === undefined) throw error;
      this.#version = next;
      return this.#send(method, params, options).then(this.#noted);
    });
  }

  /** Notes the server's info from a result's `_meta`. */
  readonly #noted = (result: JsonObject): JsonObject => {
    const meta = result._meta;
    const info = isJsonObject(meta) ? meta[META.serverInfo] : undefined;
    if (isJsonObject(info) && typeof info.name === 'string') {
      this.serverInfo = info as unknown as Implementation;
    }
    return result;
  };

  /**
   * The era's `_meta` as sent with a request that has none of its own: made once per version and log
   * level, and frozen (requests share it; nothing on the way out changes a request's `_meta`).
   */
  #sharedMeta(): JsonObject {
    const shared = this.#shared;
    if (shared?.version === this.#version && shared.logLevel === this.logLevel) return shared.meta;
    // Serialized once, spliced into every request that carries it (see `serializeOnce`).
    const meta = serializeOnce(this.meta());
    this.#shared = { version: this.#version, logLevel: this.logLevel, meta };
    return meta;
  }

  /**
   * The request with the era's `_meta`. Client capabilities the request's own `_meta` declares (a tasks
   * call declaring the tasks extension) are added to the client's.
   */
  #send(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    if (params?._meta === undefined) {
      return this.#peer.request(method, withMember(params, '_meta', this.#sharedMeta()), options);
    }
    const own = isJsonObject(params._meta) ? params._meta : {};
    const meta = this.meta();
    const extra = own[META.clientCapabilities];
    if (isJsonObject(extra)) {
      const base = this.#identity.capabilities;
      const extensions = { ...asObject(base.extensions), ...asObject(extra.extensions) };
      meta[META.clientCapabilities] = {
        ...base,
        ...extra,
        ...(Object.keys(extensions).length ? { extensions } : {}),
      };
    }
    return this.#peer.request(
      method,
      withMember(params, '_meta', assignMembers(assignMembers({}, own), meta)),
      options,
    );
  }
}
