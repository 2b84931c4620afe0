// A tool call on the wire, in both eras, on the direct path (a chain no middleware can abort:
// `toolTimeout: false`, nothing added with `use()` — what the gateway's calls take) and on the chained one
// (the default timeout): every duty of a tool call applies on both — arguments checked against the
// inputSchema, output sanitization, the result checked against the outputSchema, the audit log, rate
// limits, the concurrency cap, cancellation.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { ProtocolError } from '../src/protocol/errors.js';
import type { CallToolResult } from '../src/protocol/types/tools.js';
import { Server, text, type AuditRecord, type ServerOptions } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { linkServer } from './_setup.js';

const SCHEMA = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } as const;
const textOf = (result: CallToolResult) => result.content.map((b) => (b.type === 'text' ? b.text : b.type));
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** A server with tools of a schema; `audit` collects the audit records. */
function toolServer(options: ServerOptions = {}) {
  const audit: AuditRecord[] = [];
  const server = new Server(
    { name: 'relay', version: '1.0.0' },
    {
      audit: { sink: { write: (record) => void audit.push(record) } },
      onToolBug: () => undefined,
      ...options,
    },
  );
  const echo = (args: JsonObject) => text(`got ${JSON.stringify(args)}`);
  server.tool('checked', { inputSchema: SCHEMA }, (args) => echo(args as JsonObject));
  server.tool('leak', {}, () => text('config: aws_key=AKIAIOSFODNN7EXAMPLE'));
  server.tool(
    'sum',
    {
      inputSchema: SCHEMA,
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    },
    (args) => ({
      content: [],
      // n = 0 breaks the outputSchema (a string where a number is due).
      structuredContent: { sum: (args as { n: number }).n || 'none' },
    }),
  );
  return { server, audit };
}

describe.each([
  ['stateless era', '2026-07-28'],
  ['handshake era', '2025-11-25'],
] as const)('a tool call (%s)', (_era, protocolVersion) => {
  describe.each([
    ['direct path', { toolTimeout: false }],
    ['chained path', {}],
  ] as const)('on the %s', (_path, options) => {
    it('checks the arguments against the inputSchema', async () => {
      const { server } = toolServer(options);
      await using c = await linkServer(server, { protocolVersion });
      expect(textOf(await c.client.callTool('checked', { n: 1 }))).toEqual(['got {"n":1}']);
      const refused = await c.client.callTool('checked', { n: 'one' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)[0]).toMatch(/^Invalid arguments for tool checked: /);
    });

    it('sanitizes its result, checks it against the outputSchema, and audits every call', async () => {
      const { server, audit } = toolServer(options);
      await using c = await linkServer(server, { protocolVersion });
      expect(textOf(await c.client.callTool('leak'))).toEqual(['config: aws_key=[REDACTED]']);
      expect(await c.client.callTool('sum', { n: 3 })).toEqual({
        content: [{ type: 'text', text: '{"sum":3}' }],
        structuredContent: { sum: 3 },
      });
      const broken = await c.client.callTool('sum', { n: 0 });
      expect(broken.isError).toBe(true);
      expect(textOf(broken)[0]).toMatch(
        /^Tool sum returned structured content that does not match its outputSchema/,
      );
      expect(audit.map((r) => [r.tool, r.decision, r.outcome])).toEqual([
        ['leak', 'allowed', 'ok'],
        ['sum', 'allowed', 'ok'],
        ['sum', 'allowed', 'isError'],
      ]);
    });

    it('is rate limited like any tool', async () => {
      const { server } = toolServer({ ...options, rateLimit: { perCaller: false } });
      server.tool('once', { rateLimit: { burst: 1, perSecond: 0.001 } }, () => text('ok'));
      await using c = await linkServer(server, { protocolVersion });
      expect(textOf(await c.client.callTool('once'))).toEqual(['ok']);
      const error = await failure(c.client.callTool('once'));
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code).toBe(-31429);
    });

    it("holds a call past the tool's concurrency cap until the call before it has finished", async () => {
      const { server } = toolServer({ ...options, concurrency: { maxWaitMs: 10_000 } });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const entered: string[] = [];
      let firstEntered!: () => void;
      const first = new Promise<void>((resolve) => (firstEntered = resolve));
      server.tool(
        'single',
        { maxConcurrency: 1, inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
        async (args) => {
          const name = String((args as { name?: unknown }).name);
          entered.push(name);
          if (name === 'a') {
            firstEntered();
            await gate;
          }
          return text(name);
        },
      );
      await using c = await linkServer(server, { protocolVersion });
      const a = c.client.callTool('single', { name: 'a' });
      await first;
      const b = c.client.callTool('single', { name: 'b' });
      // b waits for a's slot: a round trip of another call proves b had its turn at the chain and waits.
      await c.client.callTool('leak');
      expect(entered).toEqual(['a']);
      release();
      expect(textOf(await a)).toEqual(['a']);
      expect(textOf(await b)).toEqual(['b']);
      expect(entered).toEqual(['a', 'b']);
    });

    it("aborts the handler's signal and cancellation when the caller cancels", async () => {
      const { server, audit } = toolServer(options);
      let entered!: () => void;
      const running = new Promise<void>((resolve) => (entered = resolve));
      let cancelled!: (reason: unknown) => void;
      const seen = new Promise<unknown>((resolve) => (cancelled = resolve));
      server.tool('wait', {}, (_args, ctx) => {
        ctx.cancellation.onAbort((reason) => cancelled(reason));
        entered();
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(new Error('cancelled'))),
        );
      });
      await using c = await linkServer(server, { protocolVersion });
      const controller = new AbortController();
      const call = failure(c.client.callTool('wait', {}, { signal: controller.signal }));
      await running;
      controller.abort(new Error('stop'));
      await seen;
      expect(await call).toBeInstanceOf(Error);
      await expect.poll(() => audit.map((r) => [r.tool, r.outcome])).toEqual([['wait', 'error']]);
    });
  });
});

describe('a call on the direct path, on the wire', () => {
  it('refuses arguments that are not an object with -32602, as for any tool', async () => {
    const { server } = toolServer({ toolTimeout: false });
    const [clientEnd, serverEnd] = createLinkedPair();
    await server.connect(serverEnd);
    const answer = new Promise<JsonObject>((resolve) => {
      clientEnd.onmessage = (message) => resolve(message as JsonObject);
    });
    await clientEnd.start();
    await clientEnd.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'checked',
        arguments: [1, 2],
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        },
      },
    });
    expect(await answer).toMatchObject({
      id: 1,
      error: { code: -32602, message: 'Invalid params: "arguments" must be an object' },
    });
    await server.close();
  });
});
