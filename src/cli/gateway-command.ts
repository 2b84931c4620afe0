/**
 * `toolwire gateway`: one MCP endpoint in front of many servers, every call through the policy, the
 * ones that need a person held for approval (see `toolwire approvals`).
 *
 * The contract (tests rely on it):
 * - `--http`: the MCP URL is the first line on stdout; `--stdio` (the default): stdout carries MCP only.
 * - stderr: what is served, the decision API's URL and token (the token once), how to connect a host
 *   and approve; then one line per approval asked and decided, and per upstream going down or up.
 * - `--config FILE` is followed: a change on disk is applied without a restart (or, if invalid, refused
 *   with a line on stderr, the running configuration kept).
 * - exit 0 when stdin closes (stdio), or on SIGINT/SIGTERM once the calls running upstream are answered
 *   (within the server's `shutdownGraceMs`; pending approvals end with an isError result) and the
 *   upstreams are stopped; a second signal stops at once. 2 for usage errors and invalid configurations
 *   (each problem named with its path).
 * @module
 */
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createGateway,
  gatewayJsonLinesSink,
  serveGateway,
  type Gateway,
  type GatewayConfig,
  type GatewayEvent,
  type GatewayHttpHandle,
} from '../gateway/index.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../server/index.js';
import { StdioServerTransport } from '../transports/stdio/index.js';
import { CLI, helpHint } from './command-name.js';
import { EXIT_CODES_HELP, ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { FileOAuthStore } from './file-oauth-store.js';
import { gatewayConfigOf, type GatewayFlags } from './gateway-command-line.js';
import { HTTP_AUTH_FLAGS, httpAuthOf, type HttpAuthFlags } from './http-auth-flags.js';
import {
  parseCommandLine,
  parsePositiveInteger,
  parseSessionUnloadMs,
  wantsHelp,
} from './parse-command-line.js';
import { quietPipes } from './quiet-pipes.js';
import { listenFailure, principalFromEnv, scavengeOnOneThread } from './serve-command.js';
import { onStopSignals, within } from './stop-signals.js';
import { VERSION } from './version.js';
import { watchConfigFile } from './watch-config.js';

const GATEWAY_OPTIONS = {
  config: { type: 'string' },
  upstream: { type: 'string', multiple: true },
  policy: { type: 'string', multiple: true },
  default: { type: 'string' },
  trust: { type: 'string', multiple: true },
  http: { type: 'boolean' },
  stdio: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  'api-port': { type: 'string' },
  'approval-timeout': { type: 'string' },
  audit: { type: 'string' },
  redis: { type: 'string' },
  'session-unload-ms': { type: 'string' },
  'print-config': { type: 'boolean' },
  demo: { type: 'boolean' },
  stateless: { type: 'boolean' },
  json: { type: 'boolean' },
  ...HTTP_AUTH_FLAGS,
} as const;

export const GATEWAY_HELP = `Usage: toolwire gateway [--config FILE] [--upstream NAME=URL | --upstream 'NAME=command args']...
                        [--policy NAME.TOOL=allow|ask|deny]... [--default ACTION] [--trust NAME]...
                        [--http [--port P] [--host H] [--stateless] [--json] | --stdio [--api-port P]]
                        [--jwks URL --issuer ISS [--audience URL] [--scope S]]
                        [--approval-timeout MS] [--audit FILE] [--redis URL [--session-unload-ms MS]]
                        [--print-config]
                        [--upstream NAME -- command args...]

One MCP endpoint in front of many MCP servers. Their tools appear namespaced (files__read_file),
and every call passes the policy: allowed, denied, or held until a person approves it from the
decision API (toolwire approvals, or the HTTP API at /api with the token printed at start).

  --config FILE        a JSON configuration (schema: gateway-config.schema.json in the package);
                       changes on disk are applied without a restart
  --upstream NAME=URL  an upstream over Streamable HTTP (falling back to HTTP+SSE)
  --upstream 'NAME=command args'   an upstream spawned over stdio (split on spaces, no shell)
  --upstream NAME -- command args  the same, with everything after "--" (one upstream, last)
  --policy NAME.TOOL=ACTION        a rule before the file's (globs: files.write_*=ask, *.delete_*=deny)
  --default ACTION     for calls no rule or trusted annotation decides (default ask)
  --trust NAME         let the upstream's tool annotations decide (read-only: allow; destructive: ask)
  --http               serve MCP over HTTP at http://HOST:PORT/mcp, the API at /api and the web
                       console at /console/ (PORT, else 3000)
  --stdio              serve MCP over stdio (the default; for hosts that spawn a command); the API
                       listens on --api-port (default: any free port, printed on stderr)
  --host H             the interface (default 127.0.0.1)
  --stateless          (--http) no sessions: each POST is served on its own
  --json               (--http) answer POSTs with one JSON body instead of an SSE stream
  --approval-timeout MS  how long an approval waits (default 120000), then the call fails
  --audit FILE         append every audit record to FILE as JSON lines
  --redis URL          share MCP sessions, approvals, "approve always" grants, audit records and live
                       events with every gateway started with the same Redis (redis://HOST:PORT): any
                       one serves a session, a call held by one is decided through any other's API
  --session-unload-ms MS  (--http, Redis) an instance lets go of its copy of an MCP session idle there
                       this long (default 5000; the next request, anywhere, takes it up from Redis);
                       0 keeps the copies
  --print-config       print the "mcpServers" entry a host needs to start this gateway, and exit
  --demo               the demo workspace server as the one upstream, asking before write_file

Authentication (off unless --jwks is given): requests to the MCP endpoint (--http) need an OAuth 2.1
access token (Authorization: Bearer), a JWT signed by a key of the JWKS, issued by ISS for this
gateway; the decision API takes such tokens too, from principals with the role "approver" (they
decide) or "watcher" (they read), besides the API token.
  --jwks URL                  the authorization server's JWKS (jwks_uri)
  --issuer ISS                the issuer the tokens must name (iss)
  --audience URL              the gateway's MCP URL, the tokens' audience (aud) and the resource of
                              /.well-known/oauth-protected-resource (default http://HOST:PORT/mcp)
  --authorization-server URL  named in the metadata (default: ISS)
  --scope S                   a scope every MCP request needs

SIGTERM or SIGINT: no new requests; the calls running upstream get the grace period (10 s) to
finish and are answered, pending approvals end with an isError result; then the upstreams are
stopped and the gateway exits 0. A second signal stops at once.

The API token is TOOLWIRE_TOKEN when set, else generated and printed once at start. Instances behind one
load balancer share TOOLWIRE_TOKEN, --redis and TOOLWIRE_REQUEST_STATE_SECRET (the key that signs the
requestState of a question relayed in the stateless era; default: random per process). The console's
link, printed at start, signs one browser in once; sign in elsewhere with the API token. Over stdio the
caller's identity comes from TOOLWIRE_SUBJECT / TOOLWIRE_SCOPES / TOOLWIRE_ROLES, as with serve.

OAuth-protected HTTP upstreams (an "oauth" setting in the configuration, or tokens that
"${CLI} login URL" kept for the URL) use the token file that login keeps (0600,
$TOOLWIRE_OAUTH_FILE else ~/.config/toolwire/oauth.json); one that needs a person to sign in says so,
and the console's Upstreams view has a "Sign in" button for it.

Examples:
  ${CLI} gateway --http --upstream files -- ${CLI} serve --policy 'files.write_file=ask' --default allow
  ${CLI} gateway --config gateway.json --print-config
  ${CLI} approvals list --gateway http://127.0.0.1:3000

${EXIT_CODES_HELP}
`;

const HINT = helpHint('gateway');

type Values = GatewayFlags & {
  http?: boolean | undefined;
  stdio?: boolean | undefined;
  port?: string | undefined;
  host?: string | undefined;
  'api-port'?: string | undefined;
  'approval-timeout'?: string | undefined;
  audit?: string | undefined;
  redis?: string | undefined;
  'session-unload-ms'?: string | undefined;
  'print-config'?: boolean | undefined;
  demo?: boolean | undefined;
  stateless?: boolean | undefined;
  json?: boolean | undefined;
} & HttpAuthFlags;

/** The toolwire command itself, for an upstream that runs `toolwire serve` and for printed configs. */
function selfCommand(): { command: string; script: string } {
  const script = process.argv[1] ?? fileURLToPath(new URL('../../bin/toolwire.mjs', import.meta.url));
  return { command: process.execPath, script: resolve(script) };
}

/** The demo: the workspace server as the one upstream, write_file asking, everything else allowed. */
function demoConfig(): GatewayConfig {
  const { command, script } = selfCommand();
  return {
    upstreams: { demo: { command, args: [script, 'serve'] } },
    policy: { rules: [{ upstream: 'demo', tool: 'write_file', action: 'ask' }], default: 'allow' },
  };
}

function configOf(values: Values, rest: string[] | undefined): GatewayConfig {
  if (!values.demo) return gatewayConfigOf(values, rest, HINT);
  if (values.config !== undefined || values.upstream !== undefined || rest !== undefined) {
    throw usageError('--demo brings its own upstream: leave out --config and --upstream', HINT);
  }
  return demoConfig();
}

function portOf(value: string | undefined, name: string, fallback: number): number {
  const port = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw usageError(`--${name} must be 0-65535, got ${value}`, HINT);
  return port;
}

/** What a host's `mcpServers` needs to reach this gateway. */
function hostConfig(values: Values, argv: readonly string[], port: number): string {
  if (values.http || values.demo) {
    const host = values.host ?? '127.0.0.1';
    return JSON.stringify(
      { mcpServers: { 'toolwire-gateway': { type: 'http', url: `http://${host}:${port}/mcp` } } },
      null,
      2,
    );
  }
  const { command, script } = selfCommand();
  const args = ['gateway', ...argv.filter((arg) => arg !== '--print-config')];
  const at = args.indexOf('--config');
  if (at !== -1 && args[at + 1] !== undefined) args[at + 1] = resolve(args[at + 1]!);
  if (!args.includes('--stdio')) args.splice(1, 0, '--stdio');
  return JSON.stringify(
    { mcpServers: { 'toolwire-gateway': { command, args: [script, ...args] } } },
    null,
    2,
  );
}

export async function gatewayCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    process.stdout.write(GATEWAY_HELP);
    return ExitCode.Success;
  }
  const { values, positionals, rest } = parseCommandLine(argv, GATEWAY_OPTIONS, HINT) as {
    values: Values;
    positionals: string[];
    rest: string[] | undefined;
  };
  if (positionals.length > 0) throw usageError(`gateway takes no argument "${positionals[0]}"`, HINT);
  if (values.http && values.stdio) throw usageError('--http and --stdio exclude each other', HINT);
  const http = values.http === true || (values.demo === true && !values.stdio);
  if (!http && (values.stateless || values.json))
    throw usageError('--stateless and --json go with --http', HINT);
  const port = portOf(values.port ?? process.env.PORT, 'port', 3000);
  const config = configOf(values, rest);
  const host = values.host ?? '127.0.0.1';
  // The tokens' audience is the MCP endpoint; over stdio the API alone takes them (no default audience).
  const auth = await httpAuthOf(values, { host, port: http ? port : 0, hint: HINT });
  if (values['print-config']) {
    process.stdout.write(`${hostConfig(values, argv, port)}\n`);
    return ExitCode.Success;
  }
  const timeout = parsePositiveInteger(values['approval-timeout'], 'approval-timeout', HINT);
  const redis = values.redis;
  if (redis !== undefined && !/^rediss?:\/\/./i.test(redis)) {
    throw usageError(`--redis must be a redis:// or rediss:// URL, got "${redis}"`, HINT);
  }
  const withTimeout = (c: GatewayConfig): GatewayConfig => {
    const withRedis = redis === undefined ? c : { ...c, redis };
    return timeout === undefined
      ? withRedis
      : { ...withRedis, approvals: { ...c.approvals, timeoutMs: timeout } };
  };
  const unloadMs = parseSessionUnloadMs(values['session-unload-ms'], HINT);
  if (unloadMs !== undefined && (!http || withTimeout(config).redis === undefined)) {
    throw usageError(
      '--session-unload-ms goes with --http and Redis (--redis, or "redis" in the configuration): only shared sessions are unloaded',
      HINT,
    );
  }
  const auditFile = values.audit ?? config.audit?.file;
  // Instances behind one load balancer share it, so that a retry with the caller's answer may reach any.
  const requestStateSecret = process.env.TOOLWIRE_REQUEST_STATE_SECRET || undefined;
  const gateway = createGateway(withTimeout(config), {
    info: { name: 'toolwire-gateway', version: VERSION },
    // OAuth upstreams' tokens in the CLI's token file: those `toolwire login URL` kept are used too.
    oauthStore: new FileOAuthStore(),
    ...(requestStateSecret === undefined ? {} : { server: { requestStateSecret } }),
    ...(auditFile
      ? { auditSinks: [gatewayJsonLinesSink(createWriteStream(auditFile, { flags: 'a' }))] }
      : {}),
  });
  const say = (line: string) => process.stderr.write(`toolwire gateway: ${line}\n`);
  try {
    await gateway.start();
  } catch (error) {
    await gateway.close();
    throw error;
  }
  const token = process.env.TOOLWIRE_TOKEN || undefined;
  // Another interface than loopback also needs its name in the Host allow-lists.
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(host);
  const hosts = loopback
    ? {}
    : { allowedHosts: ['localhost', '127.0.0.1', host.includes(':') ? `[${host}]` : host] };
  let handle: GatewayHttpHandle;
  try {
    handle = await serveGateway(gateway, {
      host,
      port: http ? port : portOf(values['api-port'], 'api-port', 0),
      mcp: http
        ? {
            ...hosts,
            stateless: values.stateless === true,
            responseMode: values.json ? 'json' : 'sse',
            ...(auth ? { auth } : {}),
            ...(unloadMs === undefined ? {} : { sessionUnloadMs: unloadMs }),
          }
        : false,
      api: {
        ...hosts,
        ...(token === undefined ? {} : { token }),
        ...(auth && !http ? { verifier: auth.verifier } : {}),
      },
    });
  } catch (error) {
    await gateway.close();
    throw listenFailure(error, host, port, values.port === undefined);
  }
  if (http) {
    quietPipes();
    process.stdout.write(`${handle.url}\n`);
  }
  introduce(gateway, handle, say, token === undefined, http);
  const unsubscribe = gateway.on(
    (event) => narrate(event, handle, say),
    ['approval.pending', 'approval.decided', 'upstream.status'],
  );
  const watcher =
    values.config === undefined
      ? undefined
      : watchConfigFile(resolve(values.config), () => {
          void reload(gateway, () => withTimeout(configOf(values, rest)), say);
        });
  const graceMs = gateway.server.options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
  if (http) {
    // The first signal: pending approvals end, new requests are refused, the calls running upstream get
    // the grace period; a second: at once.
    await new Promise<void>((resolve) => {
      const stopSignals = onStopSignals((graceful) => {
        if (!graceful) stopSignals();
        else say(`stopping: the running calls get up to ${graceMs} ms`);
        void gateway.approvals.close(); // held calls end at once; the store learns it meanwhile
        void handle.close(graceful ? { graceMs } : {}).then(resolve, resolve);
      });
    });
  } else {
    await serveStdio(gateway, graceMs, say);
  }
  watcher?.close();
  unsubscribe();
  await handle.close();
  await gateway.close();
  return ExitCode.Success;
}

/** Serves MCP over stdio until stdin closes or a signal stops it (running calls drained, answers flushed). */
async function serveStdio(gateway: Gateway, graceMs: number, say: (line: string) => void): Promise<void> {
  // One downstream client, as a stdio server: young collections on the main thread (see serve-command).
  scavengeOnOneThread();
  let onClosed!: () => void;
  const closed = new Promise<void>((done) => (onClosed = done));
  const transport = new StdioServerTransport({ onStdinClosed: () => onClosed() });
  const principal = principalFromEnv(process.env);
  const session = await gateway.server.connect(transport, principal ? { principal } : {});
  session.onclose = onClosed;
  // A signal after stdin ended (the host already waits for this process to exit) stops at once.
  const stopSignals = onStopSignals((graceful) => {
    const draining = graceful && !transport.inputEnded;
    if (draining) say(`stopping: the running calls get up to ${graceMs} ms`);
    void gateway.close(draining ? { graceMs } : {}).catch(() => undefined);
  });
  await closed;
  // The answers are written before the process exits (a pipe's writes are asynchronous), within the grace.
  await within(transport.flushed(), graceMs);
  stopSignals();
}

async function reload(
  gateway: Gateway,
  next: () => GatewayConfig,
  say: (line: string) => void,
): Promise<void> {
  try {
    await gateway.apply(next());
    say(`configuration applied (${Object.keys(gateway.config.upstreams).length} upstreams)`);
  } catch (error) {
    const detail = (error as { detail?: string }).detail;
    say(
      `configuration not applied, the running one stays: ${(error as Error).message}${detail ? `\n${detail}` : ''}`,
    );
  }
}

function introduce(
  gateway: Gateway,
  handle: GatewayHttpHandle,
  say: (line: string) => void,
  generated: boolean,
  http: boolean,
): void {
  const upstreams = gateway
    .upstreams()
    .map(
      (u) =>
        `${u.name}: ${u.status}${u.status === 'ready' ? `, ${u.tools.length} tools` : u.error ? ` (${u.error})` : ''}`,
    );
  const base = handle.apiUrl.replace(/\/api$/, '');
  say(`${upstreams.length} upstream${upstreams.length === 1 ? '' : 's'} (${upstreams.join('; ')})`);
  say(http ? `MCP endpoint: ${handle.url}` : 'MCP over stdio');
  say(`decision API: ${handle.apiUrl}`);
  const redis = gateway.config.redis;
  if (redis !== undefined) {
    const url = new URL(typeof redis === 'string' ? redis : redis.url);
    const prefix = typeof redis === 'string' ? undefined : redis.prefix;
    say(
      `sessions, approvals, grants, audit and events shared on Redis at ${url.host}${prefix ? ` (prefix ${prefix})` : ''}`,
    );
  }
  const consoleUrl = handle.consoleUrl();
  if (consoleUrl) say(`console (the link signs one browser in, once): ${consoleUrl}`);
  if (generated) say(`API token (shown only now): export TOOLWIRE_TOKEN=${handle.api.token}`);
  else say('API token: the one in TOOLWIRE_TOKEN');
  if (http)
    say(`connect a host: {"mcpServers": {"toolwire-gateway": {"type": "http", "url": "${handle.url}"}}}`);
  say(`approve from another terminal (with TOOLWIRE_TOKEN set): ${CLI} approvals list --gateway ${base}`);
}

/** One line per approval asked or decided, and per upstream status change. */
function narrate(event: GatewayEvent, handle: GatewayHttpHandle, say: (line: string) => void): void {
  const base = handle.apiUrl.replace(/\/api$/, '');
  if (event.type === 'approval.pending') {
    const { approval } = event;
    const args = JSON.stringify(approval.arguments);
    say(
      `approval ${approval.id} pending: ${approval.upstream}.${approval.tool} ${args.length > 200 ? `${args.slice(0, 200)}…` : args}` +
        `\n  ${CLI} approvals approve ${approval.id} --gateway ${base}  (or: deny ${approval.id} --reason TEXT)`,
    );
  } else if (event.type === 'approval.decided') {
    const { outcome } = event;
    const by = 'decidedBy' in outcome ? ` by ${outcome.decidedBy}` : '';
    say(
      `approval ${event.approval.id}: ${outcome.decision}${'always' in outcome && outcome.always ? ' (always)' : ''}${by}`,
    );
  } else if (event.type === 'upstream.status' && (event.status === 'down' || event.status === 'ready')) {
    say(`upstream ${event.upstream}: ${event.status}${event.error ? ` (${event.error})` : ''}`);
  } else if (event.type === 'upstream.status' && event.status === 'needs-sign-in') {
    say(`upstream ${event.upstream} needs a person to sign in: the console's Upstreams view, "Sign in"`);
  }
}
