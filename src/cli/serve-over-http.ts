/**
 * `toolwire serve --http`: a Server served over Streamable HTTP (plus legacy HTTP+SSE), its sessions shared
 * on Redis with `--redis`; and the usage error of an address it cannot listen on (`toolwire gateway` too).
 * @module
 */
import { errorMessage } from '../protocol/index.js';
import { DEFAULT_SHUTDOWN_GRACE_MS, type Server } from '../server/index.js';
import type { RedisStores } from '../stores/redis.js';
import { CLI, helpHint } from './command-name.js';
import { ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { httpAuthOf } from './http-auth-flags.js';
import { quietPipes } from './quiet-pipes.js';
import type { ServeValues } from './serve-options.js';
import { onStopSignals } from './stop-signals.js';
import { printErr } from './terminal-text.js';

const HINT = helpHint('serve');

/**
 * How long a session unused anywhere lives: the HTTP handler's `DEFAULT_SESSION_IDLE_TIMEOUT_MS`, written
 * here again so that `toolwire serve` over stdio does not load the HTTP transport to read it.
 */
const SESSION_IDLE_MS = 30 * 60_000;

/** The stores of `--redis URL` (loading ioredis only then); a bad URL is a usage error. */
export async function openRedis(url: string): Promise<RedisStores> {
  const { redisStores } = await import('../stores/redis.js');
  try {
    // A shared session expires by its record's TTL: the handler's idle timeout (30 minutes by default);
    // so do its streams' events once nothing writes or resumes them.
    return redisStores(url, { sessions: { ttlMs: SESSION_IDLE_MS }, events: { ttlMs: SESSION_IDLE_MS } });
  } catch (error) {
    throw usageError(`--redis: ${errorMessage(error)}`, HINT);
  }
}

/** Serves `server` over HTTP until a stop signal; `what` names it in the line on stderr. */
export async function serveOverHttp(
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
