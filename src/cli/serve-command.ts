/**
 * `toolwire serve [MODULE] [--http [--port P] [--host H] [--stateless] [--json]]`: serves a toolwire
 * Server over stdio, or over Streamable HTTP (plus legacy HTTP+SSE) on 127.0.0.1 by default.
 *
 * The contract (tests and the benchmark rely on it):
 * - MODULE is a .js/.mjs file, resolved from the current directory, whose default export is a
 *   toolwire `Server` or a (possibly async) function returning one. Without MODULE: the demo server.
 * - stdout carries MCP messages only (console.log/info/debug are sent to stderr while serving).
 * - One line on stderr says what is served and how to call it.
 * - Exit 0 when stdin closes (the client ends the session), once the requests already read are
 *   answered (within the server's `shutdownGraceMs`, 10 s by default); exit 2, with a message on stderr,
 *   when the module cannot be loaded.
 * - SIGTERM or SIGINT: no new requests, the running ones get the grace period, then exit 0; a second
 *   signal (or one after stdin closed) stops at once.
 * @module
 */
import { statSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { errorMessage } from '../protocol/index.js';
import { DEFAULT_SHUTDOWN_GRACE_MS, type Principal, type Server } from '../server/index.js';
import type { RedisStores } from '../stores/redis.js';
import { StdioServerTransport } from '../transports/stdio/index.js';
import { CLI, helpHint } from './command-name.js';
import { EXIT_CODES_HELP, ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { HTTP_AUTH_FLAGS, httpAuthOf } from './http-auth-flags.js';
import { loadServerModule } from './load-server-module.js';
import { parseCommandLine, parseSessionUnloadMs, wantsHelp } from './parse-command-line.js';
import { quietPipes } from './quiet-pipes.js';
import { printErr } from './terminal-text.js';
import { onStopSignals, within } from './stop-signals.js';

const SERVE_OPTIONS = {
  http: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  stateless: { type: 'boolean' },
  json: { type: 'boolean' },
  ...HTTP_AUTH_FLAGS,
  redis: { type: 'string' },
  'session-unload-ms': { type: 'string' },
} as const;

type ServeValues = {
  [K in keyof typeof SERVE_OPTIONS]?: (typeof SERVE_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

export const SERVE_HELP = `Usage: toolwire serve [MODULE] [--http [--port P] [--host H] [--stateless] [--json]
                                      [--jwks URL --issuer ISS [--audience URL] [--scope S]]
                                      [--redis URL [--session-unload-ms MS]]]

Serves a toolwire server over stdio: MCP messages on stdin and stdout, one JSON message per line.
With --http, serves it over Streamable HTTP at http://HOST:PORT/mcp (and the legacy HTTP+SSE
transport at /sse + /messages) and prints the URL on stdout.

  --http        serve over HTTP instead of stdio
  --port P      the port (default 3000; 0 picks a free one)
  --host H      the interface (default 127.0.0.1: only this machine can connect); any other
                host also needs its name allowed, which --host adds to the Host allow-list
  --stateless   no sessions: each POST is served on its own
  --json        answer POSTs with one JSON body instead of an SSE stream
  --redis URL   share sessions, resumable streams, rate limits and tasks with every instance
                given the same Redis (redis://HOST:PORT): any instance serves any session.
                A MODULE whose default export is a function is given { rateLimitStore,
                taskStore } for its server's options
  --session-unload-ms MS
                with --redis: an instance lets go of its copy of a session idle there this
                long (default 5000; the next request, anywhere, takes it up from Redis);
                0 keeps the copies

Authentication (HTTP; off unless --jwks is given): every request needs an OAuth 2.1 access token
(Authorization: Bearer), a JWT signed by a key of the JWKS, issued by ISS for this server.
  --jwks URL                  the authorization server's JWKS (jwks_uri)
  --issuer ISS                the issuer the tokens must name (iss)
  --audience URL              this server's resource URL, the tokens' audience (aud); it is also
                              the resource of the metadata at /.well-known/oauth-protected-resource
                              (default http://HOST:PORT/mcp)
  --authorization-server URL  named in the metadata (default: ISS)
  --scope S                   a scope every request needs (the demo: workspace:read; the demo's
                              write_file also needs workspace:write)

  MODULE   a .js/.mjs file, resolved from the current directory, whose default export is a
           toolwire Server, or a (possibly async) function that returns one.
           Without MODULE, serves the demo server: a sandboxed workspace toolbox (list_files,
           read_file, search_files, write_file, workspace_info) rooted at $TOOLWIRE_DEMO_ROOT,
           or the current directory. Paths cannot escape the root ("..", absolute paths,
           symbolic links pointing outside are refused).

Over stdio, the caller is anonymous unless the environment names it: TOOLWIRE_SUBJECT,
TOOLWIRE_SCOPES and TOOLWIRE_ROLES (space-separated) make the principal that tools' access
rules see.

Contract:
  - stdout carries MCP messages only; console.log/info/debug go to stderr while serving.
  - one line on stderr says what is served and how to call it.
  - exits 0 when stdin closes (the client ended the session), once the requests already
    read are answered (within the server's shutdownGraceMs, 10 s by default).
  - SIGTERM or SIGINT: takes no new requests, lets the running ones finish within the
    grace period (then cancels them), exits 0; a second signal stops at once.
  - exits 2 with a message on stderr when MODULE is missing, has no default export, or its
    default export is not a Server or a function returning one; and (--http) when the port is
    taken, naming --port.

Examples:
  ${CLI} serve                            # the demo, rooted at the current directory
  ${CLI} serve ./my-server.mjs
  ${CLI} tools -- ${CLI} serve ./my-server.mjs
  ${CLI} serve --http --port 8080          # the demo at http://127.0.0.1:8080/mcp
  ${CLI} serve --http --port 0             # any free port (the URL is printed)
  ${CLI} serve --http --port 3001 --redis redis://127.0.0.1:6379   # one of many instances

${EXIT_CODES_HELP}
`;

const HINT = helpHint('serve');

/**
 * Over stdio the caller's credentials come from the environment (the spec's rule for stdio):
 * `TOOLWIRE_SUBJECT`, `TOOLWIRE_SCOPES` and `TOOLWIRE_ROLES` (space-separated). None set: anonymous.
 */
export function principalFromEnv(env: NodeJS.ProcessEnv): Principal | undefined {
  const words = (value: string | undefined) => (value ?? '').split(/\s+/).filter((w) => w.length > 0);
  const { TOOLWIRE_SUBJECT: subject, TOOLWIRE_SCOPES: scopes, TOOLWIRE_ROLES: roles } = env;
  if (!subject && !scopes && !roles) return undefined;
  return { subject: subject || 'local', scopes: words(scopes), roles: words(roles) };
}

/** Keeps stdout for MCP: stray console output from the served module goes to stderr. */
function routeConsoleToStderr(): void {
  const toStderr = (...data: unknown[]) => console.error(...data);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/** How the user would start this server again, for the hint line. */
function invocation(module: string | undefined): string {
  const script = process.argv[1];
  let self = CLI;
  if (script !== undefined && !/[\\/]toolwire(\.cmd)?$/.test(script)) {
    const rel = relative(process.cwd(), script);
    self = `node ${rel.startsWith('..') || isAbsolute(rel) ? script : rel}`;
  }
  return module === undefined ? `${self} serve` : `${self} serve ${module}`;
}

export async function serveCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    process.stdout.write(SERVE_HELP);
    return ExitCode.Success;
  }
  const { positionals, rest, values } = parseCommandLine(argv, SERVE_OPTIONS, HINT);
  if (rest !== undefined) throw usageError('serve takes no "--"', HINT);
  if (positionals.length > 1) throw usageError(`serve takes one MODULE, got ${positionals.length}`, HINT);
  const module = positionals[0];

  if (values.redis !== undefined && !values.http) throw usageError('--redis goes with --http', HINT);
  const unloadMs = parseSessionUnloadMs(values['session-unload-ms'], HINT);
  if (unloadMs !== undefined && values.redis === undefined) {
    throw usageError('--session-unload-ms goes with --redis (only shared sessions are unloaded)', HINT);
  }
  routeConsoleToStderr();
  const stores = values.redis === undefined ? undefined : await openRedis(values.redis);
  const context = stores ? { rateLimitStore: stores.rateLimits, taskStore: stores.tasks } : undefined;
  let server: Server;
  let what: string;
  if (module === undefined) {
    const { createDemoServer, demoRoot } = await import('./demo/create-demo-server.js');
    const root = demoRoot();
    const info = statSync(root, { throwIfNoEntry: false });
    if (!info?.isDirectory()) {
      throw usageError(
        `cannot serve the demo: its root ${root} is not a directory (TOOLWIRE_DEMO_ROOT)`,
        HINT,
      );
    }
    server = createDemoServer({
      root,
      ...(values.jwks ? { writeScope: 'workspace:write' } : {}),
      ...(context ?? {}),
    });
    what = `the demo server (root ${root})`;
  } else {
    server = await loadServerModule(module, process.cwd(), context);
    what = `${server.info.name} ${server.info.version}`.trim();
  }

  if (values.http) return serveOverHttp(server, what, values, module === undefined, stores, unloadMs);
  const httpOnly = [
    'port',
    'host',
    'stateless',
    'json',
    'jwks',
    'issuer',
    'audience',
    'authorization-server',
  ];
  if (httpOnly.some((name) => values[name as keyof ServeValues] !== undefined)) {
    throw usageError(
      '--port, --host, --stateless, --json and the authentication options go with --http',
      HINT,
    );
  }

  scavengeOnOneThread();
  let onClosed!: () => void;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  const transport = new StdioServerTransport({ onStdinClosed: () => onClosed() });
  const principal = principalFromEnv(process.env);
  const session = await server.connect(transport, principal ? { principal } : {});
  session.onclose = onClosed;
  const graceMs = server.options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
  // A signal after stdin ended (the client already waits for this process to exit) stops at once.
  const stopSignals = onStopSignals((graceful) => {
    void server.close(graceful && !transport.inputEnded ? { graceMs } : {}).catch(() => undefined);
  });
  printErr(`toolwire: serving ${what} over stdio (try: ${CLI} tools -- ${invocation(module)})\n`);
  await closed;
  // The answers are written before the process exits (a pipe's writes are asynchronous), within the grace.
  await within(transport.flushed(), graceMs);
  stopSignals();
  await server.close().catch(() => undefined);
  return ExitCode.Success;
}

/**
 * How long a session unused anywhere lives: the HTTP handler's `DEFAULT_SESSION_IDLE_TIMEOUT_MS`, written
 * here again so that `toolwire serve` over stdio does not load the HTTP transport to read it.
 */
const SESSION_IDLE_MS = 30 * 60_000;

/** The stores of `--redis URL` (loading ioredis only then); a bad URL is a usage error. */
async function openRedis(url: string): Promise<RedisStores> {
  const { redisStores } = await import('../stores/redis.js');
  try {
    // A shared session expires by its record's TTL: the handler's idle timeout (30 minutes by default);
    // so do its streams' events once nothing writes or resumes them.
    return redisStores(url, { sessions: { ttlMs: SESSION_IDLE_MS }, events: { ttlMs: SESSION_IDLE_MS } });
  } catch (error) {
    throw usageError(`--redis: ${errorMessage(error)}`, HINT);
  }
}

async function serveOverHttp(
  server: Server,
  what: string,
  values: ServeValues,
  demo: boolean,
  stores: RedisStores | undefined,
  unloadMs: number | false | undefined,
): Promise<ExitCodeValue> {
  quietPipes(); // over HTTP, stdout carries only the URL: a reader that went away is no failure
  // Decimal digits only: Number('') is 0 (any free port), and 1e3 or 0x50 are no way to write a port.
  const port = values.port === undefined ? 3000 : /^\d{1,5}$/.test(values.port) ? Number(values.port) : -1;
  if (port < 0 || port > 65535) throw usageError(`--port must be 0-65535, got "${values.port}"`, HINT);
  const host = values.host ?? '127.0.0.1';
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(host);
  const auth = await httpAuthOf(values, {
    host,
    port,
    hint: HINT,
    ...(demo
      ? { defaultScope: 'workspace:read', scopesSupported: ['workspace:read', 'workspace:write'] }
      : {}),
  });
  // Loaded only here: serving over stdio never loads the HTTP transport (nor jose).
  const { serveHttp } = await import('../transports/http/index.js');
  const handle = await serveHttp(server, {
    port,
    host,
    stateless: values.stateless ?? false,
    responseMode: values.json ? 'json' : 'sse',
    ...(auth ? { auth } : {}),
    ...(stores ? { redis: stores } : {}),
    ...(unloadMs === undefined ? {} : { sessionUnloadMs: unloadMs }),
    ...(loopback
      ? {}
      : { allowedHosts: ['localhost', '127.0.0.1', '[::1]', host.includes(':') ? `[${host}]` : host] }),
  }).catch((error: unknown) => {
    throw listenFailure(error, host, port, values.port === undefined);
  });
  process.stdout.write(`${handle.url}\n`);
  printErr(
    `toolwire: serving ${what} over HTTP at ${handle.url}${auth ? ' (OAuth: bearer tokens required)' : ''}${stores ? ` (sessions shared on Redis ${redactedUrl(values.redis ?? '')})` : ''} (try: ${CLI} tools ${handle.url})\n`,
  );
  const graceMs = server.options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
  // The first signal: new requests are refused, running ones get the grace period; a second: at once.
  await new Promise<void>((resolve) => {
    const stopSignals = onStopSignals((graceful) => {
      if (!graceful) stopSignals();
      void handle.close(graceful ? { graceMs } : {}).then(resolve, resolve);
    });
  });
  await server.close().catch(() => undefined);
  await stores?.close();
  return ExitCode.Success;
}

/** A Redis URL without its password, for the log line. */
function redactedUrl(url: string): string {
  return url.replace(
    /\/\/([^@/]*)@/,
    (_, auth: string) => `//${auth.includes(':') ? `${auth.split(':')[0]}:***` : '***'}@`,
  );
}

/**
 * A port that is taken (or not ours to use) is fixed with --port, a host that names no address of this
 * machine with --host: usage errors that say so.
 */
export function listenFailure(error: unknown, host: string, port: number, defaultPort: boolean): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL') {
    const why = code === 'EADDRNOTAVAIL' ? 'is not an address of this machine' : 'does not resolve';
    return usageError(`cannot serve over HTTP: --host ${host} ${why}`, undefined, {
      code: 'BAD_HOST',
      detail:
        'Pick an interface of this machine with --host, e.g. --host 127.0.0.1 (the default) or --host 0.0.0.0.',
      details: { host, port },
    });
  }
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return error;
  const which = `port ${port}${defaultPort ? ' (the default)' : ''} on ${host}`;
  const why = code === 'EADDRINUSE' ? `${which} is already in use` : `${which} may not be used by this user`;
  return usageError(`cannot serve over HTTP: ${why}`, undefined, {
    code: code === 'EADDRINUSE' ? 'PORT_IN_USE' : 'PORT_NOT_ALLOWED',
    detail: `Pick another with --port, e.g. --port ${port === 3000 ? 3001 : 3000}, or --port 0 for any free one.`,
    details: { host, port },
  });
}

/**
 * A stdio server serves one client, and its young generation stays small: V8's parallel scavenges spend
 * more CPU handing work to helper threads than they save (≈5% of the CPU per call under pipelined
 * load, measured with the benchmark's fixture). Young collections run on the main thread instead,
 * unless the command line or NODE_OPTIONS says otherwise. (`toolwire gateway --stdio` does the same.)
 */
export function scavengeOnOneThread(): void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  if (given.includes('parallel-scavenge') || given.includes('parallel_scavenge')) return;
  // Set once the server is up: loading node:v8 (≈1 ms) is no work for the first answer to wait on.
  setTimeout(() => {
    void import('node:v8').then((v8) => v8.setFlagsFromString('--no-parallel-scavenge'));
  }, 50).unref();
}
