/**
 * `toolwire serve [MODULE] [--http [--port P] [--host H] [--stateless] [--json]]`: serves a toolwire
 * Server over stdio, or over Streamable HTTP (plus legacy HTTP+SSE) on 127.0.0.1 by default.
 *
 * The contract (tests and the benchmark rely on it):
 * - MODULE is a .js/.mjs file, resolved from the current directory, whose default export is a
 *   toolwire `Server` or a (possibly async) function returning one. Without MODULE: the demo server.
 * - stdout carries MCP messages only (console.log/info/debug are sent to stderr while serving).
 * - One line on stderr says what is served and, when stdin is a terminal (a person started it, not a host
 *   or a gateway, whose stderr is a log or the gateway's own terminal), how to call it.
 * - Exit 0 when stdin closes (the client ends the session), once the requests already read are
 *   answered (within the server's `shutdownGraceMs`, 10 s by default); exit 2, with a message on stderr,
 *   when the module cannot be loaded.
 * - SIGTERM or SIGINT: no new requests, the running ones get the grace period, then exit 0; a second
 *   signal (or one after stdin closed) stops at once.
 * @module
 */
import { statSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { DEFAULT_SHUTDOWN_GRACE_MS, type Principal, type Server } from '../server/index.js';
import { StdioServerTransport } from '../transports/stdio/index.js';
import { CLI, helpHint } from './command-name.js';
import { ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { loadServerModule } from './load-server-module.js';
import { parseCommandLine, parseSessionUnloadMs, wantsHelp } from './parse-command-line.js';
import { openRedis, serveOverHttp } from './serve-over-http.js';
import { SERVE_HELP, SERVE_OPTIONS, type ServeValues } from './serve-options.js';
import { printErr } from './terminal-text.js';
import { onStopSignals, within } from './stop-signals.js';

/** What `toolwire serve --help` prints (main.ts reads it here with the command). */
export { SERVE_HELP } from './serve-options.js';

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
  // The hint is for a person at a terminal; through a gateway (npm start) it told them to start another server.
  const hint = process.stdin.isTTY ? ` (try: ${CLI} tools -- ${invocation(module)})` : '';
  printErr(`toolwire: serving ${what} over stdio${hint}\n`);
  await closed;
  // The answers are written before the process exits (a pipe's writes are asynchronous), within the grace.
  await within(transport.flushed(), graceMs);
  stopSignals();
  await server.close().catch(() => undefined);
  return ExitCode.Success;
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
