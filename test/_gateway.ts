// Runs the real `toolwire gateway` command (node bin/toolwire.mjs gateway …, dist/ built from src/ by the
// global setup) as a child process, and talks to its decision API: JSON requests and the event stream.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { onTestFinished } from 'vitest';
import type { Client, ClientOptions } from '../src/client/index.js';
import { createGateway, type StdioUpstreamConfig } from '../src/gateway/index.js';
import { linkServer } from './_setup.js';
import { SseReader } from './_sse.js';

export const BIN = fileURLToPath(new URL('../bin/toolwire.mjs', import.meta.url));
export const PROTOCOL_FIXTURE = fileURLToPath(new URL('./fixtures/protocol-server.mjs', import.meta.url));
export const CRASHY_FIXTURE = fileURLToPath(new URL('./fixtures/crashy-server.mjs', import.meta.url));
export const EVERYTHING = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);
/** The decision API token every test gateway gets (TOOLWIRE_TOKEN). */
export const TOKEN = 'gateway-test-token-0123456789';

/** A stdio upstream that runs `toolwire serve MODULE` (the demo without one). */
export function toolwireUpstream(
  module?: string,
  extra: Partial<StdioUpstreamConfig> = {},
): StdioUpstreamConfig {
  return {
    command: process.execPath,
    args: module === undefined ? [BIN, 'serve'] : [BIN, 'serve', module],
    stderr: 'ignore',
    ...extra,
  };
}

/** Writes a configuration file into a fresh folder; returns its path. */
export function writeConfig(
  config: unknown,
  dir = mkdtempSync(path.join(tmpdir(), 'toolwire-gateway-')),
): string {
  const file = path.join(dir, 'gateway.json');
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/**
 * An official SDK 1.x host declaring `capabilities`, spawning `toolwire gateway --stdio` in front of the
 * official server-everything (`everything`, every call allowed); closed when the test ends.
 */
export async function everythingHost(capabilities: Record<string, unknown>): Promise<ClientV1> {
  const config = writeConfig({
    upstreams: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' } },
    policy: { default: 'allow' },
  });
  const client = new ClientV1({ name: 'host', version: '1.0.0' }, { capabilities });
  onTestFinished(() => client.close().catch(() => undefined));
  await client.connect(sdkGatewayTransport(config));
  return client;
}

/** The official SDK 1.x stdio transport a host uses to spawn `toolwire gateway --stdio --config CONFIG`. */
export function sdkGatewayTransport(config: string): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'gateway', '--stdio', '--config', config],
    env: { ...(process.env as Record<string, string>), TOOLWIRE_TOKEN: TOKEN },
    stderr: 'ignore',
  });
}

export interface GatewayEventData {
  type: string;
  [key: string]: unknown;
}

/**
 * The decision API's event stream, read event by event. One opened in a test is closed when the test
 * finishes: a caller may hold only so many streams at once (4 by default, `maxEventStreamsPerCaller`).
 */
export class GatewayEvents {
  readonly #reader: SseReader;

  constructor(response: Response) {
    this.#reader = new SseReader(response);
    try {
      onTestFinished(() => this.close().catch(() => undefined));
    } catch {
      // opened outside a test (a hook): its opener closes it
    }
  }

  /** Closes the stream (the gateway drops its listener). */
  close(): Promise<void> {
    return this.#reader.cancel();
  }

  /** The next event of `type` (`*`: any type) that `match` accepts (others are skipped). */
  async next(
    type: string,
    match: (event: GatewayEventData) => boolean = () => true,
  ): Promise<GatewayEventData> {
    for (;;) {
      const event = await this.#reader.next(15_000);
      if (!event) throw new Error(`the event stream ended before a ${type} event`);
      if (type !== '*' && event.event !== type) continue;
      const data = { type: event.event, ...(JSON.parse(event.data) as object) } as GatewayEventData;
      if (match(data)) return data;
    }
  }
}

export interface RunningGateway {
  /** The MCP endpoint (HTTP gateways). */
  readonly url: string;
  /** http://127.0.0.1:PORT */
  readonly base: string;
  readonly child: ChildProcess;
  stderr(): string;
  /** A request to the decision API, with the token unless `headers` say otherwise. */
  api(
    pathname: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  /** Opens the event stream (open it before the action whose events you wait for). */
  events(): Promise<GatewayEvents>;
  close(): Promise<void>;
}

/** Whatever `line` prefix on stderr says, once it is printed (e.g. the decision API's URL). */
export function waitForLine(
  read: () => string,
  pattern: RegExp,
  child: ChildProcess,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(read());
      if (match) {
        cleanup();
        resolve(match);
      }
    };
    const exited = (code: number | null) => {
      cleanup();
      reject(new Error(`the gateway exited (${code}) before printing ${String(pattern)}:\n${read()}`));
    };
    const cleanup = () => {
      child.stderr?.off('data', check);
      child.stdout?.off('data', check);
      child.off('exit', exited);
    };
    child.stderr?.on('data', check);
    child.stdout?.on('data', check);
    child.once('exit', exited);
    check();
  });
}

export function apiClient(base: string) {
  return (
    pathname: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${base}/api${pathname}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
}

/**
 * A request to the decision API of a gateway served in this process (`serveGateway`), with its token: a
 * GET, or a POST of `body` as JSON.
 */
export function servedApi(
  served: { apiUrl: string; api: { token: string } },
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${served.apiUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${served.api.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Starts `toolwire gateway --http --port 0 …args` and waits for its URL. */
export async function startGateway(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<RunningGateway> {
  const child = spawn(process.execPath, [BIN, 'gateway', '--http', '--port', '0', ...args], {
    env: { ...process.env, TOOLWIRE_TOKEN: TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [, url] = await waitForLine(() => stdout, /^(http:\/\/\S+\/mcp)\n/, child);
  const base = new URL(url!).origin;
  const api = apiClient(base);
  return {
    url: url!,
    base,
    child,
    stderr: () => stderr,
    api,
    async events() {
      const response = await api('/events');
      if (response.status !== 200) throw new Error(`GET /api/events answered ${response.status}`);
      return new GatewayEvents(response);
    },
    close: () => stop(child),
  };
}

/** Ends a gateway process (SIGTERM) and waits for it to exit. */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * The gateway as a library (policy: allow) in front of one stdio upstream `name` (`node ...args`), and a
 * toolwire client linked to it in memory with `options`; their closes go to `cleanup`.
 */
export async function linkedGateway(
  name: string,
  args: string[],
  options: ClientOptions,
  cleanup: (() => Promise<unknown>)[],
): Promise<Client> {
  const gateway = createGateway(
    {
      upstreams: { [name]: { command: process.execPath, args, stderr: 'ignore' } },
      policy: { default: 'allow' },
    },
    { onLog: () => undefined },
  );
  cleanup.push(() => gateway.close());
  await gateway.start();
  const linked = await linkServer(gateway.server, options);
  cleanup.push(() => linked.close());
  return linked.client;
}
