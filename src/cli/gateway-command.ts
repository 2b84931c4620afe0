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
import {
  createGateway,
  gatewayJsonLinesSink,
  serveGateway,
  type Gateway,
  type GatewayConfig,
  type GatewayHttpHandle,
} from '../gateway/index.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../server/index.js';
import { StdioServerTransport } from '../transports/stdio/index.js';
import { helpHint } from './command-name.js';
import { ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { FileOAuthStore } from './file-oauth-store.js';
import { gatewayConfigOf, type GatewayFlags } from './gateway-command-line.js';
import { GATEWAY_HELP } from './gateway-help.js';
import { introduce, narrate } from './gateway-narration.js';
import { HTTP_AUTH_FLAGS, httpAuthOf, type HttpAuthFlags } from './http-auth-flags.js';
import {
  parseCommandLine,
  parsePositiveInteger,
  parseSessionUnloadMs,
  wantsHelp,
} from './parse-command-line.js';
import { quietPipes } from './quiet-pipes.js';
import { demoWorkspace, type DemoWorkspace } from './demo-workspace.js';
import { demoConfig, hostConfig } from './self-command.js';
import { principalFromEnv, scavengeOnOneThread } from './serve-command.js';
import { listenFailure } from './serve-over-http.js';
import { onStopSignals, within } from './stop-signals.js';
import { VERSION } from './version.js';
import { watchConfigFile } from './watch-config.js';
import { printErr } from './terminal-text.js';

const GATEWAY_OPTIONS = {
  config: { type: 'string' },
  upstream: { type: 'string', multiple: true },
  policy: { type: 'string', multiple: true },
  default: { type: 'string' },
  trust: { type: 'string', multiple: true },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  'trust-forwarded-proto': { type: 'boolean' },
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

/** The usage (in gateway-help.ts), loaded with the command (main.ts). */
export { GATEWAY_HELP };

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

/**
 * The configuration; `hint` (the help to see) is left out of its errors on a reload, where it does not help.
 * `demo`: where the demo's workspace is, with `--demo` (which takes no file, so is never reloaded).
 */
function configOf(
  values: Values,
  rest: string[] | undefined,
  hint: string | undefined,
  demo?: DemoWorkspace,
): GatewayConfig {
  if (!values.demo) return gatewayConfigOf(values, rest, hint);
  if (values.config !== undefined || values.upstream !== undefined || rest !== undefined) {
    throw usageError('--demo brings its own upstream: leave out --config and --upstream', hint);
  }
  // The demo's upstream and rules, with the flags on top as on a file's: --policy, --default, --trust.
  // Without `demo`, the configuration is only printed (--print-config), never started.
  return gatewayConfigOf(values, undefined, hint, demoConfig(demo?.root ?? process.cwd()));
}

function portOf(value: string | undefined, name: string, fallback: number): number {
  const port = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw usageError(`--${name} must be 0-65535, got ${value}`, HINT);
  return port;
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
  if (http && values['api-port'] !== undefined)
    throw usageError('--api-port goes with --stdio: over HTTP the decision API is on --port, at /api', HINT);
  const port = portOf(values.port ?? process.env.PORT, 'port', 3000);
  // A fresh folder for the demo (not the cwd, a clone of toolwire under npm start); none to print a config.
  const demo = values.demo && !values['print-config'] ? demoWorkspace() : undefined;
  const config = configOf(values, rest, HINT, demo);
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
  const say = (line: string) => printErr(`toolwire gateway: ${line}\n`);
  try {
    await gateway.start();
  } catch (error) {
    await gateway.close();
    throw error;
  }
  const token = process.env.TOOLWIRE_TOKEN || undefined;
  // Another interface than loopback also needs its name in the Host allow-lists, as the names the
  // configuration lists (its `http` settings: the listener takes its Origin ones and trustForwardedProto).
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(host);
  const listed = config.http?.allowedHosts ?? [];
  const named = loopback ? [] : [host.includes(':') ? `[${host}]` : host];
  const hosts =
    loopback && listed.length === 0
      ? {}
      : { allowedHosts: [...new Set(['localhost', '127.0.0.1', '[::1]', ...named, ...listed])] };
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
  if (demo !== undefined)
    say(
      demo.fresh
        ? `demo workspace: ${demo.root} (a fresh folder; TOOLWIRE_DEMO_ROOT serves another)`
        : `demo workspace: ${demo.root} (TOOLWIRE_DEMO_ROOT)`,
    );
  introduce(gateway, handle, say, token === undefined, http);
  const unsubscribe = gateway.on(
    (event) => narrate(event, handle, say),
    ['approval.pending', 'approval.decided', 'upstream.status'],
  );
  const watcher =
    values.config === undefined
      ? undefined
      : watchConfigFile(
          resolve(values.config),
          () => void reload(gateway, () => withTimeout(configOf(values, rest, undefined)), say),
          () =>
            say(
              `${resolve(values.config!)} was removed: the running configuration stays (a new file there is applied)`,
            ),
        );
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
  // Its one host: the host's roots are the gateway's, for the upstreams' roots/list that no call carries.
  const session = await gateway.connectHost(transport, principal ? { principal } : {});
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
    const count = Object.keys(gateway.config.upstreams).length;
    say(`configuration applied (${count} upstream${count === 1 ? '' : 's'})`);
  } catch (error) {
    const detail = (error as { detail?: string }).detail;
    say(
      `configuration not applied, the running one stays: ${(error as Error).message}${detail ? `\n${detail}` : ''}`,
    );
  }
}
