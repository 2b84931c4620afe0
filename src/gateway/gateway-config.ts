/**
 * What a gateway is configured with: its upstream servers (stdio commands or HTTP URLs), how their tools
 * are named downstream, the policy every call passes, approvals, reconnection and the audit log. The same
 * shape is the JSON of `toolwire gateway --config FILE` (see `gateway-config.schema.json`).
 * @module
 */
import type { ApprovalAction, Revision } from '../index.js';
import type { ParkedCallLimits } from './parked-calls.js';

/** What a policy rule, or the policy's default, decides for a call. */
export type PolicyAction = ApprovalAction;

/** Settings every upstream may have, whatever its transport. */
export interface UpstreamCommon {
  /**
   * What its tools' and prompts' names start with downstream (default: the upstream's name), joined to
   * the upstream's own name by the gateway's `separator`: `files` + `__` + `read_file`.
   */
  prefix?: string;
  /**
   * Whether its tool annotations (`readOnlyHint`, `destructiveHint`, `openWorldHint`) may decide calls no
   * rule matched (default false: annotations from a server you do not trust are untrusted, as the spec
   * says).
   */
  trusted?: boolean;
  /** The revision to speak (default `auto`: the stateless era when the server speaks it, else the handshake). */
  protocolVersion?: 'auto' | Revision;
  /** How long one call may take upstream, in ms, renewed by each progress notification (default 60,000). */
  timeoutMs?: number;
  /**
   * The longest one call may take upstream, in ms, however much progress it reports (default 600,000, and
   * never less than `timeoutMs`): an upstream reporting progress for ever does not hold a call for ever.
   */
  maxCallMs?: number;
  /**
   * The most tools it may list (default 10,000; at most 100,000), and as many items of each of its other
   * lists (resources, resource templates, prompts). Each listed tool costs the gateway memory (≈2 KB: its
   * upstream record, its downstream registration, its pages): an upstream listing more is not exposed — it
   * is `down`, its error saying so, and is tried again with the reconnection backoff — rather than holding
   * hundreds of megabytes. Its paging stops at the page that passes the cap.
   */
  maxTools?: number;
  /**
   * How long connecting may take in all (spawn, era probe, handshake, first lists) before the attempt counts
   * as failed, in ms (default 30,000). Raise it for a server that is slow to start (an `npx` that downloads
   * its package first); the gateway serves once every upstream was tried once, so it also bounds the start.
   */
  connectTimeoutMs?: number;
}

/** An upstream spawned as a command and spoken to over stdio. */
export interface StdioUpstreamConfig extends UpstreamCommon {
  command: string;
  args?: string[];
  /** Variables set for the command, over the gateway's own environment. */
  env?: Record<string, string>;
  cwd?: string;
  /**
   * The command's stderr: passed through to the gateway's, each line prefixed with the upstream's name
   * (`[demo] …`; default), or dropped.
   */
  stderr?: 'inherit' | 'ignore';
}

/** An upstream at a URL: Streamable HTTP, falling back to HTTP+SSE for 2024-11-05 servers. */
export interface HttpUpstreamConfig extends UpstreamCommon {
  url: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The name of an environment variable of the gateway holding a bearer token to send (kept out of the file). */
  bearerEnv?: string;
  /**
   * The upstream is an OAuth-protected MCP server: the gateway gets its tokens with the OAuth client of
   * `toolwire/http-client` (discovery, registration, refresh) and keeps them in its token store. Not with
   * `bearerEnv`. An HTTP upstream without it still uses tokens the store holds for its URL (those
   * `toolwire login URL` kept, for the gateway command).
   */
  oauth?: UpstreamOAuthConfig;
}

/** How the gateway gets tokens for an OAuth-protected upstream. */
export interface UpstreamOAuthConfig {
  /**
   * `authorization_code` (default): a person signs in — the upstream's status is `needs-sign-in` until
   * someone does, from the console's "Sign in" (or `toolwire login URL` for the gateway command).
   * `client_credentials`: the gateway acts on its own behalf, with `clientId` and its secret.
   */
  grant?: 'authorization_code' | 'client_credentials';
  /** A client id registered with the authorization server beforehand (else the gateway registers, RFC 7591). */
  clientId?: string;
  /**
   * The issuer of the authorization server that registered `clientId`, exactly as the upstream's resource
   * metadata names it: `clientId` and its secret go to that server only (another is refused). Without it,
   * they are bound to the first authorization server they are used with.
   */
  issuer?: string;
  /** The name of an environment variable of the gateway holding the secret of `clientId`. */
  clientSecretEnv?: string;
  /** The HTTPS URL of the gateway's Client ID Metadata Document, used as its client id where supported. */
  clientMetadataUrl?: string;
  /** Scopes to ask for (space-separated), besides those the upstream names. */
  scope?: string;
}

export type UpstreamConfig = StdioUpstreamConfig | HttpUpstreamConfig;

/** A policy rule: the first rule whose globs match the upstream's name and the tool's own name decides. */
export interface PolicyRule {
  /** Glob on the upstream's name (`*` any run, `?` one character); absent matches every upstream. */
  upstream?: string;
  /** Glob on the tool's name as the upstream lists it (not the namespaced name), e.g. `write_*`. */
  tool: string;
  action: PolicyAction;
}

/**
 * Who may reach the gateway's HTTP listener — its MCP endpoint, decision API and console — and by which
 * names: the defaults of `serveGateway`'s options. Read at start: a change needs a restart.
 */
export interface GatewayHttpConfig {
  /**
   * Host header values the listener answers, with or without a port (e.g. `gateway.example.com`), instead of
   * the loopback names (the gateway command keeps those and its `--host`'s, and adds these). Others get 403.
   */
  allowedHosts?: string[];
  /**
   * Origins a browser may send, e.g. `https://gateway.example.com` (scheme, host and port; no path), instead
   * of the loopback ones: the MCP endpoint's and the API's Origin check, and an origin the console's
   * cross-site check accepts as its own.
   */
  allowedOrigins?: string[];
  /**
   * The decision API takes the scheme browsers reach it by from `X-Forwarded-Proto` (default false): set it
   * only behind a TLS terminator that sets that header itself. The console's cross-site check then expects
   * an `https://` Origin, and its session cookie is `Secure`.
   */
  trustForwardedProto?: boolean;
}

export interface GatewayConfig {
  /** Upstream servers by name (letters, digits, `_` and `-`; no two with the same prefix). */
  upstreams: Record<string, UpstreamConfig>;
  /** Between prefix and name in namespaced names (default `__`). */
  separator?: string;
  /**
   * Which names the gateway exposes: `llm` (default), what LLM APIs accept as function names,
   * `^[a-zA-Z0-9_-]{1,64}$` (other characters of an upstream's name become `_`); or `mcp`, the MCP rule
   * `^[A-Za-z0-9_.-]{1,128}$`. Two tools that end up with the same name are a clear error: the second is
   * not exposed and the gateway says why.
   */
  toolNames?: 'llm' | 'mcp';
  policy?: {
    rules?: PolicyRule[];
    /**
     * What happens to calls no rule and no trusted annotation decided (default `ask`: tools that may be
     * destructive or whose behaviour is unknown wait for a person).
     */
    default?: PolicyAction;
  };
  approvals?: {
    /** How long a pending approval waits for a decision, in ms (default 120,000), then the call fails. */
    timeoutMs?: number;
    /**
     * While a call waits for approval, a progress notification this often, in ms (default 5,000), when the
     * caller asked for progress: its request timeout is renewed and it sees why it waits.
     */
    progressIntervalMs?: number;
  };
  /**
   * Reconnection of a lost upstream: the first delay, doubled after each failure up to the last (ms). An
   * HTTP upstream is pinged every `checkIntervalMs` while it is up (default 15,000), so that a server that
   * went away is noticed without a call failing first.
   */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number; checkIntervalMs?: number };
  /**
   * A Redis server where instances of this gateway share pending approvals, "approve always" grants, audit
   * records and live events (`redis://…` or `rediss://…`, or with the prefix of its keys, default
   * `toolwire:`). Default: none, everything in this process's memory. Read at start: a change needs a
   * restart.
   */
  redis?: string | { url: string; prefix?: string };
  /** Who may reach the HTTP listener, and by which names (read at start: a change needs a restart). */
  http?: GatewayHttpConfig;
  /**
   * Stateless-era calls whose upstream asked their caller something wait upstream between the caller's
   * rounds (parked): how long one waits for its retry (`ttlMs`, default 60,000), how many may wait at once
   * (`max`, default 256, 0 parks none; `maxPerCaller`, default 16). `createGateway`'s `parkedCalls` option
   * overrides each one it gives. A change applies to the calls parked after it (those parked keep their ttl).
   */
  parkedCalls?: ParkedCallLimits;
  audit?: {
    /** Records kept for the decision API (default 1,000; the oldest go first). */
    maxRecords?: number;
    /** A file to append every record to, as one JSON object per line (the command line opens it). */
    file?: string;
  };
}

/** The defaults of a configuration's optional settings. */
export const GATEWAY_DEFAULTS = {
  separator: '__',
  toolNames: 'llm',
  policyDefault: 'ask',
  approvalTimeoutMs: 120_000,
  approvalProgressIntervalMs: 5_000,
  reconnectInitialDelayMs: 500,
  reconnectMaxDelayMs: 30_000,
  reconnectCheckIntervalMs: 15_000,
  auditMaxRecords: 1_000,
  upstreamTimeoutMs: 60_000,
  upstreamMaxCallMs: 600_000,
  upstreamMaxTools: 10_000,
} as const;

/** Whether an upstream is reached over HTTP (it has a `url`). */
export function isHttpUpstream(config: UpstreamConfig): config is HttpUpstreamConfig {
  return typeof (config as Partial<HttpUpstreamConfig>).url === 'string';
}
