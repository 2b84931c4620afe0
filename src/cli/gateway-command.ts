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
 * - exit 0 on SIGINT/SIGTERM (HTTP) or when stdin closes (stdio); 2 for usage errors and invalid
 *   configurations (each problem named with its path).
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
import { StdioServerTransport } from '../transports/stdio/index.js';
import { CLI, helpHint } from './command-name.js';
import { EXIT_CODES_HELP, ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { gatewayConfigOf, type GatewayFlags } from './gateway-command-line.js';
import { parseCommandLine, parsePositiveInteger, wantsHelp } from './parse-command-line.js';
import { quietPipes } from './quiet-pipes.js';
import { listenFailure, principalFromEnv } from './serve-command.js';
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
  'print-config': { type: 'boolean' },
  demo: { type: 'boolean' },
} as const;

export const GATEWAY_HELP = `Usage: toolwire gateway [--config FILE] [--upstream NAME=URL | --upstream 'NAME=command args']...
                        [--policy NAME.TOOL=allow|ask|deny]... [--default ACTION] [--trust NAME]...
                        [--http [--port P] [--host H] | --stdio [--api-port P]]
                        [--approval-timeout MS] [--audit FILE] [--print-config]
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
  --approval-timeout MS  how long an approval waits (default 120000), then the call fails
  --audit FILE         append every audit record to FILE as JSON lines
  --print-config       print the "mcpServers" entry a host needs to start this gateway, and exit
  --demo               the demo workspace server as the one upstream, asking before write_file

The API token is TOOLWIRE_TOKEN when set, else generated and printed once at start. The console's
link, printed at start, signs one browser in once; sign in elsewhere with the API token. Over stdio the
caller's identity comes from TOOLWIRE_SUBJECT / TOOLWIRE_SCOPES / TOOLWIRE_ROLES, as with serve.

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
  'print-config'?: boolean | undefined;
  demo?: boolean | undefined;
};

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
  const port = portOf(values.port ?? process.env.PORT, 'port', 3000);
  const config = configOf(values, rest);
  if (values['print-config']) {
    process.stdout.write(`${hostConfig(values, argv, port)}\n`);
    return ExitCode.Success;
  }
  const timeout = parsePositiveInteger(values['approval-timeout'], 'approval-timeout', HINT);
  const withTimeout = (c: GatewayConfig): GatewayConfig =>
    timeout === undefined ? c : { ...c, approvals: { ...c.approvals, timeoutMs: timeout } };
  const auditFile = values.audit ?? config.audit?.file;
  const gateway = createGateway(withTimeout(config), {
    info: { name: 'toolwire-gateway', version: VERSION },
    ...(auditFile
      ? { auditSinks: [gatewayJsonLinesSink(createWriteStream(auditFile, { flags: 'a' }))] }
      : {}),
  });
  const say = (line: string) => process.stderr.write(`toolwire gateway: ${line}\n`);
  await gateway.start();
  const host = values.host ?? '127.0.0.1';
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
      mcp: http ? hosts : false,
      api: { ...hosts, ...(token === undefined ? {} : { token }) },
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
  if (http) {
    await new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
  } else {
    await serveStdio(gateway);
  }
  watcher?.close();
  unsubscribe();
  await handle.close();
  await gateway.close();
  return ExitCode.Success;
}

async function serveStdio(gateway: Gateway): Promise<void> {
  let onClosed!: () => void;
  const closed = new Promise<void>((done) => (onClosed = done));
  const transport = new StdioServerTransport({ onStdinClosed: () => onClosed() });
  const principal = principalFromEnv(process.env);
  const session = await gateway.server.connect(transport, principal ? { principal } : {});
  session.onclose = onClosed;
  process.once('SIGTERM', onClosed);
  await closed;
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
  }
}
