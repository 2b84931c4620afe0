// Client links (issue 5): middleware around every request and tool call, in the documented order (audit,
// approval, links, result checks, wire); tool results checked before they are handed on; per-call
// timeouts on by default, cancelling the hung call on the server. Over the in-memory pair and HTTP, against
// a real toolwire Server.
import { describe, expect, it } from 'vitest';
import { Client, ClientError, type ClientAuditRecord, type ClientOptions } from '../src/client/index.js';
import { LocalErrorCode, type JsonObject } from '../src/protocol/index.js';
import { Server, text } from '../src/server/index.js';
import { serveHttp } from '../src/transports/http/node-adapter.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { linkServer } from './_setup.js';

interface Fixture {
  client: Client;
  /** Arguments each handler run received. */
  ran: JsonObject[];
  /** Tool calls the server saw cancelled (their handler's signal aborted). */
  aborted: string[];
  [Symbol.asyncDispose](): Promise<void>;
}

function buildServer(ran: JsonObject[], aborted: string[]): Server {
  const server = new Server({ name: 'links-fixture', version: '1.0.0' });
  const object = { type: 'object' } as const;
  server.tool('echo', { inputSchema: object, annotations: { readOnlyHint: true } }, (args) => {
    ran.push(args);
    return text(JSON.stringify(args));
  });
  server.tool('wipe', { inputSchema: object, annotations: { destructiveHint: true } }, (args) => {
    ran.push(args);
    return text('wiped');
  });
  server.tool('big', { inputSchema: object }, () => text('x'.repeat(4096)));
  server.tool(
    'hang',
    { inputSchema: object },
    (_args, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          aborted.push('hang');
          resolve(text('aborted'));
        });
      }),
  );
  return server;
}

const TRANSPORTS = {
  'in-memory': async (options: ClientOptions): Promise<Fixture> => {
    const ran: JsonObject[] = [];
    const aborted: string[] = [];
    const linked = await linkServer(buildServer(ran, aborted), options);
    return { client: linked.client, ran, aborted, [Symbol.asyncDispose]: () => linked.close() };
  },
  http: async (options: ClientOptions): Promise<Fixture> => {
    const ran: JsonObject[] = [];
    const aborted: string[] = [];
    const http = await serveHttp(buildServer(ran, aborted), { port: 0, host: '127.0.0.1' });
    const client = new Client({ name: 'links-test', version: '1.0.0' }, options);
    await client.connect(new StreamableHttpClientTransport({ url: http.url }));
    const dispose = async () => {
      await client.close();
      await http.close();
    };
    return { client, ran, aborted, [Symbol.asyncDispose]: dispose };
  },
};

for (const [transport, connect] of Object.entries(TRANSPORTS)) {
  describe(`client links [${transport}]`, () => {
    it('runs audit, approval, links and the request links in order, and links see tool and server', async () => {
      const order: string[] = [];
      const audit: ClientAuditRecord[] = [];
      await using f = await connect({
        onAudit: (record) => audit.push(record),
        approval: {
          rules: [{ tool: '*', action: 'ask' }],
          approver: async () => {
            order.push('approval');
            return 'once';
          },
        },
        links: [
          {
            toolCall: async (call, next) => {
              const tool = await call.tool();
              order.push(
                `tool-link:${call.name}:${call.server?.name}:${String(tool.annotations?.readOnlyHint)}`,
              );
              const result = await next({ ...call, arguments: { ...call.arguments, added: true } });
              return { ...result, content: [...result.content, { type: 'text', text: 'from link' }] };
            },
          },
        ],
      });
      f.client.use({
        request: (request, next) => {
          order.push(`request-link:${request.method}`);
          return next();
        },
      });
      const result = await f.client.callTool('echo', { a: 1 });
      // The approver is shown the listed tool: fetching it is a request of its own.
      expect(order).toEqual([
        'request-link:tools/list',
        'approval',
        'tool-link:echo:links-fixture:true',
        'request-link:tools/call',
      ]);
      expect(f.ran).toEqual([{ a: 1, added: true }]);
      expect(result.content).toEqual([
        { type: 'text', text: '{"a":1,"added":true}' },
        { type: 'text', text: 'from link' },
      ]);
      expect(audit).toMatchObject([{ tool: 'echo', decision: 'asked-once', outcome: 'ok' }]);
    });

    it('a link can short-circuit or refuse; nothing reaches the server and the audit records it', async () => {
      const audit: ClientAuditRecord[] = [];
      await using f = await connect({ onAudit: (record) => audit.push(record) });
      f.client.use({
        toolCall: async (call, next) => {
          if (call.name === 'wipe') {
            call.verdict.decision = 'denied';
            call.verdict.reason = 'wipe is not for this app';
            throw new Error('refused by the app');
          }
          if (call.arguments.cached === true) return { content: [{ type: 'text', text: 'cached' }] };
          return next();
        },
      });
      await expect(f.client.callTool('wipe', {})).rejects.toThrow('refused by the app');
      const cached = await f.client.callTool('echo', { cached: true });
      expect(cached.content).toEqual([{ type: 'text', text: 'cached' }]);
      expect(f.ran).toEqual([]);
      expect(audit).toMatchObject([
        { tool: 'wipe', decision: 'denied', reason: 'wipe is not for this app' },
        { tool: 'echo', decision: 'allowed', outcome: 'ok' },
      ]);
      expect(audit[0]).not.toHaveProperty('outcome');
    });

    it('a request link can change the options of every request, e.g. a shorter timeout', async () => {
      await using f = await connect({});
      f.client.use({
        request: (request, next) => next({ ...request, options: { ...request.options, timeout: 100 } }),
      });
      const error = await f.client.callTool('hang', {}).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: LocalErrorCode.RequestTimeout });
    });

    it('a denied approval sends nothing', async () => {
      const sent: string[] = [];
      await using f = await connect({
        approval: { rules: [{ tool: 'wipe', action: 'deny' }] },
        links: [{ request: (request, next) => (sent.push(request.method), next()) }],
      });
      await expect(f.client.callTool('wipe', {})).rejects.toMatchObject({
        code: LocalErrorCode.ToolCallDenied,
      });
      expect(sent).not.toContain('tools/call');
      expect(f.ran).toEqual([]);
    });

    it('refuses a result over maxResultBytes (the result is not returned), per client and per call', async () => {
      await using f = await connect({ maxResultBytes: 1024 });
      const error = await f.client.callTool('big', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClientError);
      expect(error).toMatchObject({
        code: LocalErrorCode.MessageTooLarge,
        details: { tool: 'big', limit: 1024 },
      });
      const allowed = await f.client.callTool('big', {}, { maxResultBytes: 10_000 });
      expect(allowed.content).toHaveLength(1);
    });

    it('checks content blocks and isError; keeps unknown block types and warns once', async () => {
      // A toolwire server never sends such results, so a request link (inside the result checks, next to
      // the wire) plays the misbehaving server.
      const warnings: string[] = [];
      let raw: JsonObject = {};
      await using f = await connect({
        onWarning: (message) => warnings.push(message),
        links: [
          { request: (request, next) => (request.method === 'tools/call' ? Promise.resolve(raw) : next()) },
        ],
      });
      raw = { content: [{ type: 'image', data: 42 }] };
      await expect(f.client.callTool('raw', {})).rejects.toMatchObject({
        code: LocalErrorCode.InvalidResult,
        details: { index: 0 },
      });
      raw = { content: [], isError: 'yes' };
      await expect(f.client.callTool('raw', {})).rejects.toMatchObject({
        code: LocalErrorCode.InvalidResult,
      });
      raw = {
        content: [
          { type: 'hologram', frames: 3 },
          { type: 'text', text: 'ok' },
        ],
      };
      const kept = await f.client.callTool('raw', {});
      await f.client.callTool('raw', {});
      expect(kept.content).toEqual([
        { type: 'hologram', frames: 3 },
        { type: 'text', text: 'ok' },
      ]);
      expect(warnings).toEqual(['Tool raw returned a content block of unknown type "hologram" (kept)']);
    });

    it('times out a hung tool by default (requestTimeout) and cancels it on the server', async () => {
      await using f = await connect({ requestTimeout: 150 });
      const started = performance.now();
      const error = await f.client.callTool('hang', {}).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: LocalErrorCode.RequestTimeout });
      expect(performance.now() - started).toBeLessThan(2_000);
      await expect.poll(() => f.aborted).toEqual(['hang']);
    });

    it('a per-call timeout wins over the default', async () => {
      await using f = await connect({});
      const error = await f.client.callTool('hang', {}, { timeout: 100 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: LocalErrorCode.RequestTimeout, details: { timeout: 100 } });
      await expect.poll(() => f.aborted).toEqual(['hang']);
    });
  });
}
