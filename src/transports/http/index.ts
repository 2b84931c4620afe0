/**
 * `toolwire/http`: serve a toolwire Server over Streamable HTTP (the handshake era's sessions,
 * 2025-03-26 … 2025-11-25, and the stateless era's per-request exchanges, 2026-07-28, on one endpoint)
 * and the legacy HTTP+SSE transport. The core is a web-standard handler (`handle(Request): Response`) for any
 * runtime or framework; `toNodeHandler` and `serveHttp` adapt it to node:http.
 * Everything exported here is public API.
 * @module toolwire/http
 */
export { StreamableHttpHandler } from './streamable-http-handler.js';
export {
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  type StreamableHttpOptions,
  type SharedSessionStores,
} from './http-options.js';
export { OriginGuard, type OriginGuardOptions } from './origin-guard.js';
export {
  serveHttp,
  toNodeHandler,
  type ServeHttpOptions,
  type HttpServerHandle,
  type FetchHandler,
  type ReplyHandler,
} from './node-adapter.js';
export { MemoryEventStore, MemorySessionStore } from '../../stores/index.js';
export type {
  EventStore,
  MemoryEventStoreOptions,
  SessionStore,
  SessionRecord,
  StoredEvent,
} from '../../stores/index.js';
// Authentication: the OAuth 2.1 resource server (RFC 9728 metadata, bearer challenges, verifiers).
export * from './auth/index.js';
export type { Principal } from '../../server/index.js';
// The light request/answer types the handler's native path uses (and that verifiers receive).
export {
  JsonReply,
  SseReply,
  type ReplyHeaders,
  type ClientWatch,
  type HeaderReader,
  type HttpRequestLike,
  type Reply,
} from './http-exchange.js';
