/**
 * How a gateway is made, besides its configuration (`createGateway(config, options)`): how it introduces
 * itself, its downstream server's options, where audit records, log lines, OAuth tokens and shared state go,
 * how long the call log records after its last listener left.
 * @module
 */
import type { Implementation } from '../index.js';
import type { ServerOptions } from '../server/index.js';
import type { OAuthStore } from '../transports/http-client/index.js';
import type { GatewayAuditSink } from './gateway-audit-sink.js';
import { CALL_LOG_GRACE_MS } from './gateway-events.js';
import type { GatewayStores } from './gateway-stores.js';
import type { ParkedCallLimits } from './parked-calls.js';

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
  /**
   * How long the call log keeps recording calls after the last listener of calls (an event stream, a
   * console) left, in ms (default `CALL_LOG_GRACE_MS`, 60,000; 0: it stops at once): a console that
   * reconnects lists the calls made meanwhile. Calls made while nobody watched for longer are in the audit
   * log only.
   */
  callLogGraceMs?: number;
  /**
   * Stateless-era calls (prompt gets, resource reads) whose upstream asked their caller something are
   * held upstream between the caller's rounds (parked): how long one waits for its retry before it is cancelled upstream (`ttlMs`,
   * default 60,000), and how many may wait at once (`max`, default 256; `maxPerCaller`, default 16). Past
   * them a call is not parked, and its retry runs it again upstream. Over the configuration's `parkedCalls`,
   * limit by limit.
   */
  parkedCalls?: ParkedCallLimits;
}

/**
 * The grace when `callLogGraceMs` is not given: this variable's (a whole number of ms, 0 included), for
 * tests of the gateway command, which show what a call costs while nobody watches; else the default.
 */
const CALL_LOG_GRACE_ENV = 'TOOLWIRE_GATEWAY_CALL_LOG_GRACE_MS';

/** The longest a timer waits (ms): a longer grace would fire at once. */
const MAX_GRACE_MS = 2 ** 31 - 1;

/** The call log's grace for these options (see `callLogGraceMs`): a whole number of ms, 0 to ≈24.8 days. */
export function callLogGraceMs(options: GatewayOptions): number {
  const given = options.callLogGraceMs;
  if (given !== undefined) {
    if (Number.isSafeInteger(given) && given >= 0 && given <= MAX_GRACE_MS) return given;
    throw new TypeError(
      `callLogGraceMs must be a whole number of ms from 0 to ${MAX_GRACE_MS} (got ${String(given)})`,
    );
  }
  const env = Number(process.env[CALL_LOG_GRACE_ENV] ?? Number.NaN);
  return Number.isSafeInteger(env) && env >= 0 && env <= MAX_GRACE_MS ? env : CALL_LOG_GRACE_MS;
}
