// What the console's browser tests stand on: a real Chromium (scripts/chromium.mjs, launched once per test
// file by playwright-core, a fresh profile), a gateway in this process serving its MCP endpoint, decision
// API and console (dist/console, built by the global setup) on a free loopback port, one upstream — a
// toolwire HTTP server with the tools the tests need — and an official SDK 1.x client playing the model.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import {
  createGateway,
  serveGateway,
  type Gateway,
  type GatewayHttpHandle,
  type GatewayOptions,
} from '../src/gateway/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { Server, text } from '../src/server/index.js';
import { CHROMIUM_FLAGS } from '../scripts/chromium.mjs';

export const API_TOKEN = 'console-test-api-token-0123456789';
/** Tokens the gateway's verifier accepts: two people who decide, one who only watches. */
export const PEOPLE: Readonly<Record<string, { subject: string; roles: string[] }>> = {
  'alice-token': { subject: 'alice', roles: ['approver'] },
  'bob-token': { subject: 'bob', roles: ['approver'] },
  'wendy-token': { subject: 'wendy', roles: ['watcher'] },
};

/** The Chromium the global setup found or installed; fails the test file with its one line otherwise. */
export async function launchBrowser(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const provided = inject('chromium');
  if ('error' in provided) throw new Error(provided.error);
  // playwright-core gives each launch a new, empty profile (--user-data-dir in a temporary folder it removes).
  const browser = await chromium.launch({
    executablePath: provided.binary,
    args: [...CHROMIUM_FLAGS],
    timeout: 30_000,
  });
  return { browser, close: () => browser.close() };
}

export interface ConsoleFixture {
  gateway: Gateway;
  handle: GatewayHttpHandle;
  upstream: HttpServerHandle | undefined;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** A client of the official SDK 1.x, connected to the gateway's MCP endpoint: the model. */
  model(): Promise<SdkClient>;
  /** Stops serving (every connection dropped) and serves the same gateway again on the same port. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** What a console test file stands on: the browser and the gateway, once its `beforeAll` ran. */
export interface ConsoleSuite {
  readonly browser: Browser;
  readonly fixture: ConsoleFixture;
}

/** What a console test may set of its gateway's options. */
export type ConsoleGatewayOptions = Pick<GatewayOptions, 'callLogGraceMs' | 'stores'>;

/**
 * For the test file that calls it: before its tests, a browser and a console gateway (`startConsoleGateway`)
 * in front of the upstream `makeUpstream` builds, with `rules` (and `options`, or what they resolve to);
 * after them, both closed.
 */
export function useConsoleGateway(
  makeUpstream: () => Server,
  rules: { tool: string; action: 'allow' | 'ask' | 'deny' }[],
  options: ConsoleGatewayOptions | (() => Promise<ConsoleGatewayOptions>) = {},
): ConsoleSuite {
  let browser: Browser | undefined;
  let closeBrowser: (() => Promise<void>) | undefined;
  let fixture: ConsoleFixture | undefined;
  beforeAll(async () => {
    const upstream = makeUpstream();
    const gatewayOptions = typeof options === 'function' ? await options() : options;
    ({ browser, close: closeBrowser } = await launchBrowser());
    fixture = await startConsoleGateway(upstream, rules, gatewayOptions);
  }, 60_000);
  afterAll(async () => {
    await fixture?.close();
    await closeBrowser?.();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the console suite is not set up (beforeAll failed?)');
    return value;
  };
  return {
    get browser() {
      return ready(browser);
    },
    get fixture() {
      return ready(fixture);
    },
  };
}

/** The text of a call result's first block (undefined when it has none). */
export const textOf = (result: unknown) => (result as { content: { text?: string }[] }).content[0]?.text;

/** A gateway in front of `upstream` (served over HTTP), with rules and the console (and `options`). */
export async function startConsoleGateway(
  upstream: Server,
  rules: { tool: string; action: 'allow' | 'ask' | 'deny' }[],
  options: ConsoleGatewayOptions = {},
): Promise<ConsoleFixture> {
  const served = await serveHttp(upstream, { port: 0 });
  return startGatewayOver({ url: served.url }, rules, served, 'up', options);
}

/** The same in front of a program speaking MCP on its stdio (`node SCRIPT`), named `evil`. */
export async function startConsoleGatewayOverStdio(
  script: string,
  rules: { tool: string; action: 'allow' | 'ask' | 'deny' }[],
): Promise<Omit<ConsoleFixture, 'upstream'>> {
  return startGatewayOver(
    { command: process.execPath, args: [script], stderr: 'ignore' },
    rules,
    undefined,
    'evil',
  );
}

async function startGatewayOver<T extends HttpServerHandle | undefined>(
  upstreamConfig: { url: string } | { command: string; args: string[]; stderr: 'ignore' },
  rules: { tool: string; action: 'allow' | 'ask' | 'deny' }[],
  served: T,
  name = 'up',
  gatewayOptions: Pick<GatewayOptions, 'callLogGraceMs' | 'stores'> = {},
): Promise<ConsoleFixture & { upstream: T }> {
  const gateway = createGateway(
    {
      upstreams: { [name]: upstreamConfig },
      policy: { rules, default: 'allow' },
    },
    { onLog: () => undefined, ...gatewayOptions },
  );
  await gateway.start();
  const options = (port: number) => ({
    port,
    api: {
      token: API_TOKEN,
      verifier: async (token: string) => {
        const person = PEOPLE[token];
        if (!person) throw new Error('unknown token');
        return { subject: person.subject, scopes: [], roles: person.roles };
      },
    },
  });
  let handle = await serveGateway(gateway, options(0));
  const clients: SdkClient[] = [];
  const origin = new URL(handle.apiUrl).origin;
  return {
    gateway,
    get handle() {
      return handle;
    },
    upstream: served,
    origin,
    async model() {
      const client = new SdkClient({ name: 'model', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url!)));
      clients.push(client);
      return client;
    },
    async restart() {
      const { port } = handle;
      await handle.close();
      handle = await serveGateway(gateway, options(port));
    },
    async close() {
      for (const client of clients) await client.close().catch(() => undefined);
      await handle.close();
      await gateway.close();
      await served?.close();
    },
  };
}

/** A new browser context (its own cookies) with the console open and signed in through a one-time link. */
export async function openConsole(
  browser: Browser,
  fixture: Pick<ConsoleFixture, 'origin' | 'handle'>,
  options: {
    colorScheme?: 'light' | 'dark';
    /** The browser's locale and time zone (its own by default). */
    locale?: string;
    timezoneId?: string;
    view?: string;
    token?: string;
    /** Run on the new context before the console opens (to route its requests, say). */
    before?: (context: BrowserContext) => Promise<unknown>;
  } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[]; by: string }> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    ...(options.locale === undefined ? {} : { locale: options.locale }),
    ...(options.timezoneId === undefined ? {} : { timezoneId: options.timezoneId }),
    viewport: { width: 1100, height: 760 },
  });
  await options.before?.(context);
  const page = await context.newPage();
  // Script errors and CSP violations in the page: a test expects none.
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  if (options.token !== undefined) {
    await page.goto(`${fixture.origin}/console/`);
    await page.getByLabel('Token').fill(options.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
  } else {
    await page.goto(fixture.handle.consoleUrl()!);
  }
  await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
  if (options.view) await page.goto(`${fixture.origin}/console/#/${options.view}`);
  // Who the decisions taken here read as (a link's session: console-link:ID).
  const session = await context.request.get(`${fixture.origin}/api/session`);
  const { by } = (await session.json()) as { by: string };
  return { context, page, errors, by };
}

const DOCS = fileURLToPath(new URL('../docs/console/', import.meta.url));

/**
 * A screenshot of the page. With TOOLWIRE_SCREENSHOTS=1 it replaces docs/console/NAME.png (what the README
 * shows); otherwise it goes to a temporary folder, so that a test run leaves the work tree as it was.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.TOOLWIRE_SCREENSHOTS === '1' ? DOCS : path.join(tmpdir(), 'toolwire-console-shots');
  mkdirSync(dir, { recursive: true });
  await page.evaluate(() => scrollTo(0, 0));
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: false });
}

/** A promise and its resolve, for a tool that waits for the test. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** Registers the destructive `delete_file` tool the approval tests ask about (it answers `deleted PATH`). */
export function addDeleteFileTool(upstream: Server): void {
  upstream.tool(
    'delete_file',
    {
      title: 'Delete a file',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      annotations: { destructiveHint: true },
    },
    (args) => text(`deleted ${String((args as { path: string }).path)}`),
  );
}

/** The rules of the approval tests: a person is asked before each `delete_file`. */
export const ASK_BEFORE_DELETE: { tool: string; action: 'ask' }[] = [{ tool: 'delete_file', action: 'ask' }];

/** The upstream of the approval tests: a toolwire server, `files`, with `delete_file` alone. */
export function filesUpstream(): Server {
  const upstream = new Server({ name: 'files', version: '1.0.0' });
  addDeleteFileTool(upstream);
  return upstream;
}
