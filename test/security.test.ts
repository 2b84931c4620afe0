// The security built-ins of tools/call on the wire: rate limits, concurrency caps, timeouts, output
// sanitization and the audit log, plus user middleware (order, short-circuit), over the in-memory pair
// in both eras, over stdio (a real child process) and over Streamable HTTP (429 + Retry-After).
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import { ProtocolError } from '../src/protocol/errors.js';
import type { CallToolResult } from '../src/protocol/types/tools.js';
import {
  MemoryRateLimitStore,
  jsonLinesSink,
  text,
  toolError,
  type AuditRecord,
  type Server,
  type ServerOptions,
} from '../src/server/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import * as source from '../src/server/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { linkServer, serverCommand } from './_setup.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/security-server.mjs', import.meta.url));
type Build = (mod: typeof source, options?: ServerOptions) => Server;
/** The fixture server, built from the sources (the stdio tests spawn it from dist/). */
const fixture = async (options: ServerOptions = {}): Promise<Server> =>
  ((await import(FIXTURE)) as { build: Build }).build(source, options);

const connect = (server: Server, options: ClientOptions = {}) => linkServer(server, options);

/** What a client receives from the fixture's `aws_credentials` tool. */
const AWS_REDACTED = {
  content: [
    {
      type: 'text',
      text: '{"profile":"default","aws_access_key_id":"[REDACTED]","aws_secret_access_key":"[REDACTED]"}',
    },
    { type: 'text', text: '[default]\naws_access_key_id = [REDACTED]\naws_secret_access_key = [REDACTED]' },
  ],
  structuredContent: {
    profile: 'default',
    aws_access_key_id: '[REDACTED]',
    aws_secret_access_key: '[REDACTED]',
  },
};

const textOf = (result: CallToolResult) => result.content.map((b) => (b.type === 'text' ? b.text : b.type));
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** Calls `echo` n times in a row; the outcome of each: 'ok' or the error's code. */
async function burst(client: Client, n: number): Promise<Array<'ok' | number>> {
  const out: Array<'ok' | number> = [];
  for (let i = 0; i < n; i++) {
    const error = await failure(client.callTool('echo', { text: `${i}` }));
    out.push(error instanceof ProtocolError ? error.code : 'ok');
  }
  return out;
}

describe.each([
  ['stateless era', '2026-07-28'],
  ['handshake era', '2025-11-25'],
] as const)('security built-ins over the in-memory pair (%s)', (_era, protocolVersion) => {
  const open = async (options: ServerOptions = {}) => connect(await fixture(options), { protocolVersion });

  it('lets a burst of 5 through and refuses the 6th with -31429 and retryAfterMs', async () => {
    const store = new MemoryRateLimitStore({ now: () => 0 });
    await using c = await open({
      rateLimit: { store, global: false, perCaller: { burst: 5, perSecond: 1 } },
    });
    expect(await burst(c.client, 5)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    const error = (await failure(c.client.callTool('echo', { text: 'six' }))) as ProtocolError;
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.toJSON()).toEqual({
      code: -31429,
      message: 'Rate limit exceeded for this caller; retry after 1000 ms',
      data: { retryAfterMs: 1000, limit: 'caller' },
    });
  });

  it('refuses a call past a tool’s concurrency cap, and takes it once a slot is free', async () => {
    const server = await fixture({ concurrency: { maxWaitMs: 0 } });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const running = new Promise<void>((resolve) => (entered = resolve));
    server.tool('single', { maxConcurrency: 1 }, async () => (entered(), await gate, text('done')));
    await using c = await connect(server, { protocolVersion });
    const first = c.client.callTool('single');
    await running; // the first call holds the only slot
    expect(await failure(c.client.callTool('single'))).toMatchObject({
      code: -31429,
      data: { limit: 'concurrency', retryAfterMs: 1000 },
    });
    release();
    expect(textOf(await first)).toEqual(['done']);
    expect(textOf(await c.client.callTool('single'))).toEqual(['done']);
  });

  it("aborts a hung tool's signal at its timeout and answers isError", async () => {
    const server = await fixture();
    let aborted: unknown;
    server.tool('stuck', { timeout: 150 }, (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => {
        aborted = ctx.signal.reason;
      });
      return new Promise(() => {});
    });
    await using c = await connect(server, { protocolVersion });
    const started = Date.now();
    const result = await c.client.callTool('stuck');
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'Tool stuck timed out after 150 ms' }],
      isError: true,
    });
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(1500);
    expect(aborted).toMatchObject({ name: 'TimeoutError' });
  });

  it('redacts secrets in results, truncates big text, replaces mismatched images', async () => {
    await using c = await open();
    expect(textOf(await c.client.callTool('leak'))).toEqual([
      'config: aws_key=[REDACTED], Authorization: Bearer [REDACTED]',
    ]);
    expect(textOf(await c.client.callTool('big'))).toEqual([`${'z'.repeat(1000)}…[truncated 500 bytes]`]);
    const fake = await c.client.callTool('fake_png');
    expect(fake.isError).toBeUndefined();
    expect(textOf(fake)).toEqual([
      'a picture:',
      '[image removed: declared as image/jpeg, but its data is not image/jpeg]',
    ]);
  });

  it('redacts an AWS key pair in structuredContent, its JSON text and a credentials file', async () => {
    await using c = await open();
    expect(await c.client.callTool('aws_credentials')).toEqual(AWS_REDACTED);
  });

  it('writes one audit record per call: allowed, denied, rate limited, timed out; no secret in it', async () => {
    const lines: string[] = [];
    const server = await fixture({
      rateLimit: { global: false, perCaller: { burst: 4, perSecond: 0.001 } },
      audit: { sink: jsonLinesSink({ write: (line: string) => lines.push(line) }), arguments: 'redacted' },
    });
    server.use(async (call, next) => {
      if (call.arguments.text === 'forbidden') {
        call.decision = 'denied';
        return toolError('Not allowed');
      }
      return next();
    });
    await using c = await connect(server, { protocolVersion });
    expect(textOf(await c.client.callTool('echo', { text: 'password=hunter2-hunter2' }))).toEqual([
      'password=[REDACTED]',
    ]);
    await c.client.callTool('echo', { text: 'forbidden' });
    await c.client.callTool('leak');
    await c.client.callTool('hang');
    await failure(c.client.callTool('leak'));
    const records = lines.map((line) => JSON.parse(line) as AuditRecord);
    expect(records.map((r) => [r.tool, r.decision, r.outcome])).toEqual([
      ['echo', 'allowed', 'ok'],
      ['echo', 'denied', 'isError'],
      ['leak', 'allowed', 'ok'],
      ['hang', 'timed_out', 'isError'],
      ['leak', 'rate_limited', 'error'],
    ]);
    expect(records[0]).toMatchObject({
      principal: null,
      protocolVersion,
      arguments: { text: 'password=[REDACTED]' },
      resultDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(records[3]!.durationMs).toBeGreaterThanOrEqual(90);
    expect(records[4]!.error).toEqual({
      code: -31429,
      message: expect.stringMatching(/^Rate limit exceeded for this caller; retry after \d+ ms$/),
    });
    const log = lines.join('');
    for (const secret of ['hunter2', 'AKIAIOSFODNN7EXAMPLE', 'abc123def456ghi789'])
      expect(log).not.toContain(secret);
  });

  it('runs user middleware in order inside the built-ins; a middleware can short-circuit or throw', async () => {
    const server = await fixture();
    const trace: string[] = [];
    server
      .use(async (call, next) => {
        trace.push(`a>${call.tool.name}`);
        const result = await next();
        trace.push('a<');
        return { ...result, content: [...result.content, { type: 'text', text: 'AKIAIOSFODNN7EXAMPLE' }] };
      })
      .use(async (call, next) => {
        trace.push('b>');
        if (call.arguments.text === 'short') return { content: [{ type: 'text', text: 'short-circuited' }] };
        if (call.arguments.text === 'throw') throw new ProtocolError(-31000, 'Refused by policy');
        const result = await next();
        trace.push('b<');
        return result;
      });
    await using c = await connect(server, { protocolVersion });
    // Sanitization sees what user middleware added: the key is redacted.
    expect(textOf(await c.client.callTool('echo', { text: 'hi' }))).toEqual(['hi', '[REDACTED]']);
    expect(trace).toEqual(['a>echo', 'b>', 'b<', 'a<']);
    expect(textOf(await c.client.callTool('echo', { text: 'short' }))).toEqual([
      'short-circuited',
      '[REDACTED]',
    ]);
    expect(await failure(c.client.callTool('echo', { text: 'throw' }))).toMatchObject({
      code: -31000,
      message: 'Refused by policy',
    });
  });

  it('lets middleware see the principal slot, the era and validated arguments', async () => {
    const server = await fixture();
    const seen: unknown[] = [];
    server.use(async (call, next) => {
      seen.push({ principal: call.principal, era: call.era, args: call.arguments, tool: call.tool.name });
      return next();
    });
    await using c = await connect(server, { protocolVersion });
    await c.client.callTool('echo', { text: 'x' });
    // Arguments that fail the schema never reach the chain.
    await c.client.callTool('echo', { text: 42 });
    expect(seen).toEqual([
      {
        principal: undefined,
        era: protocolVersion === '2026-07-28' ? 'stateless' : 'handshake',
        args: { text: 'x' },
        tool: 'echo',
      },
    ]);
  });

  it('can turn every built-in off', async () => {
    await using c = await open({ rateLimit: false, concurrency: false, toolTimeout: false, sanitize: false });
    expect(await burst(c.client, 7)).toEqual(Array(7).fill('ok'));
    expect(textOf(await c.client.callTool('leak'))[0]).toContain('AKIAIOSFODNN7EXAMPLE');
  });
});

describe('security built-ins over stdio', () => {
  async function stdio(protocolVersion: '2025-11-25' | '2026-07-28') {
    const transport = new StdioClientTransport({ ...serverCommand(FIXTURE), stderr: 'ignore' });
    const client = new Client({ name: 'security-stdio', version: '1.0.0' }, { protocolVersion });
    await client.connect(transport);
    return { client, [Symbol.asyncDispose]: () => client.close() };
  }

  it('refuses the 6th call of a burst of 5 with -31429', async () => {
    await using c = await stdio('2025-11-25');
    expect(await burst(c.client, 6)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', -31429]);
    const error = (await failure(c.client.callTool('echo', { text: 'x' }))) as ProtocolError;
    expect((error.data as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(900_000);
  });

  it('times out a hung tool and redacts a leaked key (stateless era)', async () => {
    await using c = await stdio('2026-07-28');
    const started = Date.now();
    expect(await c.client.callTool('hang')).toMatchObject({
      content: [{ type: 'text', text: 'Tool hang timed out after 100 ms' }],
      isError: true,
    });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(textOf(await c.client.callTool('leak'))[0]).toBe(
      'config: aws_key=[REDACTED], Authorization: Bearer [REDACTED]',
    );
    expect(await c.client.callTool('aws_credentials')).toEqual(AWS_REDACTED);
  });
});

describe('security built-ins over Streamable HTTP', () => {
  let handle: HttpServerHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1' },
  };
  const post = (url: string, id: number) =>
    fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'hi' }, _meta: META },
      }),
    });

  it('answers a call over the limit with 429, Retry-After and the -31429 error (stateless era)', async () => {
    const store = new MemoryRateLimitStore({ now: () => 0 });
    handle = await serveHttp(await fixture({ rateLimit: { store, global: { burst: 5, perSecond: 0.5 } } }), {
      port: 0,
    });
    const statuses = [];
    for (let id = 1; id <= 5; id++) {
      const response = await post(handle.url, id);
      statuses.push(response.status);
      await response.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const refused = await post(handle.url, 6);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 6,
      error: {
        code: -31429,
        message: 'Rate limit exceeded for the server; retry after 2000 ms',
        data: { retryAfterMs: 2000, limit: 'global' },
      },
    });
  });

  it('answers a handshake-era call over the limit with 429 and Retry-After in JSON mode', async () => {
    const store = new MemoryRateLimitStore({ now: () => 0 });
    handle = await serveHttp(await fixture({ rateLimit: { store, global: { burst: 1, perSecond: 0.25 } } }), {
      port: 0,
      responseMode: 'json',
    });
    const headers = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    };
    const init = await fetch(handle.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    const session = {
      'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': '2025-11-25',
    };
    const call = (id: number) =>
      fetch(handle!.url, {
        method: 'POST',
        headers: { ...headers, ...session },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'echo', arguments: {} },
        }),
      });
    expect((await call(2)).status).toBe(200);
    const refused = await call(3);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('4');
    expect(await refused.json()).toMatchObject({
      id: 3,
      error: { code: -31429, data: { retryAfterMs: 4000 } },
    });
    const client = new Client({ name: 'security-http', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
    await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
    await expect(client.callTool('echo', { text: 'x' })).rejects.toMatchObject({ code: -31429 });
    await client.close();
  });

  it("answers a stateless server's handshake-era call over the limit with 429 and Retry-After", async () => {
    const store = new MemoryRateLimitStore({ now: () => 0 });
    handle = await serveHttp(await fixture({ rateLimit: { store, global: { burst: 1, perSecond: 0.5 } } }), {
      port: 0,
      responseMode: 'json',
      stateless: true,
    });
    const call = (id: number) =>
      fetch(handle!.url, {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'echo', arguments: {} },
        }),
      });
    expect((await call(1)).status).toBe(200);
    const refused = await call(2);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await refused.json()).toMatchObject({
      id: 2,
      error: { code: -31429, data: { retryAfterMs: 2000 } },
    });
  });

  it.each(['2026-07-28', '2025-11-25'] as const)(
    'gives the toolwire client (%s) the -31429 error as a ProtocolError',
    async (protocolVersion) => {
      handle = await serveHttp(await fixture(), { port: 0 });
      const client = new Client({ name: 'security-http', version: '1.0.0' }, { protocolVersion });
      await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
      expect(await burst(client, 6)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', -31429]);
      await client.close();
    },
  );
});
