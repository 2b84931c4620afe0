/**
 * Options of the Streamable HTTP handler, with their defaults.
 * @module
 */
import { MemoryEventStore, type EventStore } from '../../stores/event-store.js';
import type { SessionBus } from '../../stores/session-bus.js';
import type { SessionStore } from '../../stores/session-store.js';
import { DEFAULT_MAX_QUEUED_BYTES, DEFAULT_MAX_QUEUED_MESSAGES } from '../queued-output.js';
import type { HttpAuthOptions } from './auth/http-auth.js';
import { peerAddress } from './client-slots.js';
import type { HttpRequestLike } from './http-exchange.js';
import type { OriginGuardOptions } from './origin-guard.js';

export interface StreamableHttpOptions extends OriginGuardOptions {
  /**
   * Handshake era: no sessions, every POST is served on its own (default false). Stateless-era
   * (2026-07-28) requests are always served on their own, whatever this says.
   */
  stateless?: boolean;
  /**
   * Answer requests with an SSE stream (default) or with one JSON body. In the stateless era an error
   * that comes before anything else is always one JSON body, with the HTTP status its code maps to.
   */
  responseMode?: 'sse' | 'json';
  /** Where SSE events are kept for resumption (default: a bounded in-memory store; false to disable). */
  eventStore?: EventStore | false;
  /** Session records (default: in memory). */
  sessionStore?: SessionStore;
  /**
   * Sessions shared by every process given the same Redis (`redisStores(url)` from `toolwire/redis`):
   * session records, resumable streams and messages between processes go through it, so any process
   * serves any session. Its `sessionStore` and `eventStore` stand in for those options (unless given).
   * A `stateless` handler shares no session: its `subscriptions/listen` streams hear every process's
   * `list_changed` and resource updates through the session bus.
   */
  redis?: SharedSessionStores;
  /** A session unused this long is closed (default 30 minutes). */
  sessionIdleTimeoutMs?: number;
  /**
   * With `redis`: this process's copy of a session idle here this long (to twice that) is unloaded — no
   * open stream, no request running or waiting either way, no task of it running here, its record up to
   * date — and its next request, here or on any instance, takes it up from its record (default 5 s;
   * `false`: copies stay until `sessionIdleTimeoutMs`). The session goes on: nothing ends it but `DELETE`
   * and its record's TTL. Without a shared store no session is unloaded.
   */
  sessionUnloadMs?: number | false;
  /**
   * A session not used again after its `initialize` (no `notifications/initialized`, no other request)
   * closes after this long (default 30 s): a flood of `initialize` calls cannot hold the session cap.
   */
  handshakeTimeoutMs?: number;
  /**
   * Live sessions at most; more get 503 (default 10,000). Open stateless-era `subscriptions/listen`
   * streams are capped at the same number.
   */
  maxSessions?: number;
  /**
   * Live sessions and open `subscriptions/listen` streams one client may hold at once, legacy HTTP+SSE
   * streams included (default 100); more get 429 with -31429 and `Retry-After`. See `clientAddress`.
   */
  maxSessionsPerClient?: number;
  /**
   * The address a request's client counts under for `maxSessionsPerClient` (undefined: not counted).
   * Default: the peer's address on node:http, except a loopback peer — this machine, or a reverse proxy
   * in front, behind which every client shares one address (read its forwarded header here instead).
   */
  clientAddress?: (request: HttpRequestLike) => string | undefined;
  /** The SSE `retry` field, in ms (default 1000). */
  retryMs?: number;
  /**
   * Keep-alive comments on open SSE streams, in ms (default 15,000; 0 turns them off). A stateless-era
   * SSE response starts with its first message, or with its first keep-alive if nothing comes sooner.
   */
  keepAliveMs?: number;
  /** The largest POST body, in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /**
   * Output a session's SSE streams may hold for a client that does not read them, in bytes (default
   * 8 MiB). At this much, the session's POSTs get 429 until the client reads; a stream that alone holds
   * twice as much is ended (the client may resume it with `Last-Event-ID`; a legacy HTTP+SSE session ends).
   */
  maxQueuedBytes?: number;
  /** The same limit in messages (SSE events; default 4096). */
  maxQueuedMessages?: number;
  /** Legacy HTTP+SSE (2024-11-05) endpoints beside the MCP endpoint (default on: `/sse` and `/messages`). */
  legacySse?: false | { ssePath?: string; messagesPath?: string };
  /** The MCP endpoint path (default `/mcp`); other paths get 404. */
  endpoint?: string;
  /**
   * Turns on authentication: every request to the MCP endpoint (and the legacy SSE endpoints) needs an
   * `Authorization: Bearer` credential that `auth.verifier` accepts (see `jwtVerifier`), in both eras and
   * in stateless mode; the protected resource metadata (RFC 9728) is served at
   * `/.well-known/oauth-protected-resource` (and with the endpoint's path appended). A session is bound
   * to the subject that opened it: another subject's requests on it get 404. Default: off (anonymous).
   */
  auth?: HttpAuthOptions;
}

/** What the `redis` option takes (what `RedisStores` has): a session store, an event store, a bus. */
export interface SharedSessionStores {
  readonly sessions: SessionStore;
  readonly events: EventStore;
  readonly sessionBus: SessionBus;
}

/** The options with their defaults filled in. */
export function resolveHttpOptions(options: StreamableHttpOptions): ResolvedHttpOptions {
  const stateless = options.stateless ?? false;
  return {
    stateless,
    responseMode: options.responseMode ?? 'sse',
    eventStore:
      stateless || options.eventStore === false
        ? undefined
        : (options.eventStore ?? options.redis?.events ?? new MemoryEventStore()),
    sessionIdleTimeoutMs: options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS,
    sessionUnloadMs: unloadMs(options),
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 30_000,
    maxSessions: options.maxSessions ?? 10_000,
    maxSessionsPerClient: options.maxSessionsPerClient ?? 100,
    clientAddress: options.clientAddress ?? peerAddress,
    retryMs: options.retryMs ?? 1000,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
    maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
    maxQueuedMessages: options.maxQueuedMessages ?? DEFAULT_MAX_QUEUED_MESSAGES,
    endpoint: options.endpoint ?? '/mcp',
    legacySse:
      options.legacySse === false
        ? undefined
        : {
            ssePath: options.legacySse?.ssePath ?? '/sse',
            messagesPath: options.legacySse?.messagesPath ?? '/messages',
          },
  };
}

export interface ResolvedHttpOptions {
  stateless: boolean;
  responseMode: 'sse' | 'json';
  eventStore: EventStore | undefined;
  sessionIdleTimeoutMs: number;
  /** Idle copies of shared sessions are unloaded (undefined: never; always without `redis`). */
  sessionUnloadMs: number | undefined;
  handshakeTimeoutMs: number;
  maxSessions: number;
  maxSessionsPerClient: number;
  clientAddress: (request: HttpRequestLike) => string | undefined;
  retryMs: number;
  keepAliveMs: number;
  maxBodyBytes: number;
  maxQueuedBytes: number;
  maxQueuedMessages: number;
  endpoint: string;
  legacySse: { ssePath: string; messagesPath: string } | undefined;
}

/** `sessionUnloadMs` for a handler that shares sessions (a positive number of ms); undefined: none. */
function unloadMs(options: StreamableHttpOptions): number | undefined {
  const value = options.sessionUnloadMs;
  if (
    value !== undefined &&
    value !== false &&
    !(Number.isSafeInteger(value) && value > 0 && value < 2 ** 31)
  )
    throw new RangeError(`sessionUnloadMs must be a positive integer (ms) or false, got ${String(value)}`);
  if (options.redis === undefined || options.stateless === true || value === false) return undefined;
  return value ?? DEFAULT_SESSION_UNLOAD_MS;
}

/** How long a session unused lives, by default (`sessionIdleTimeoutMs`, ms): 30 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;

/** How long a shared session's copy stays idle in a process before it is unloaded (ms). */
export const DEFAULT_SESSION_UNLOAD_MS = 5000;
