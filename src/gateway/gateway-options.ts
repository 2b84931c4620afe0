/**
 * How a gateway is made, besides its configuration (`createGateway(config, options)`): how it introduces
 * itself, its downstream server's options, where audit records, log lines, OAuth tokens and shared state go.
 * @module
 */
import type { Implementation } from '../index.js';
import type { ServerOptions } from '../server/index.js';
import type { OAuthStore } from '../transports/http-client/index.js';
import type { GatewayAuditSink } from './gateway-audit-sink.js';
import type { GatewayStores } from './gateway-stores.js';

export interface GatewayOptions {
  /** How the gateway introduces itself, downstream and upstream (default `toolwire-gateway`). */
  info?: Implementation;
  /**
   * Options of the downstream server (rate limits, sanitization, audit of its own, access policy…).
   * Default: no tool timeout (a call may wait for approval; each upstream's `timeoutMs` bounds its part),
   * and the server's other defaults (among them its rate limit of 20,000 calls/s per caller).
   */
  server?: ServerOptions;
  /** Where audit records go besides the memory store (JSON lines, pino). */
  auditSinks?: readonly GatewayAuditSink[];
  /** Upstream log messages no single caller can be told, and the gateway's warnings. Default: stderr. */
  onLog?: (line: string) => void;
  /**
   * Where the tokens of OAuth-protected upstreams are kept (default: in memory, `MemoryOAuthStore`). The
   * gateway command uses the CLI's token file, so tokens `toolwire login URL` kept are used too.
   */
  oauthStore?: OAuthStore;
  /**
   * Where approvals, grants and audit records live and how events reach other instances (default: the
   * configuration's `redis`, else memory). Stores given here stay yours to close.
   */
  stores?: GatewayStores;
}
