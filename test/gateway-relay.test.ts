// The gateway as a library (`createGateway`), its downstream end linked in memory to a toolwire client in
// either era, its upstreams real: HTTP servers in this process, the protocol fixture over stdio. What the
// process-level tests cannot make deterministic or do not reach: an upstream that stays down, the logging,
// sampling and roots relays, name collisions, and an approved stateless-era call that asks its caller.
import { afterEach, describe, expect, it } from 'vitest';
import { Client, argumentsDigest, type ClientOptions } from '../src/client/index.js';
import { createGateway, type Gateway, type GatewayConfig, type GatewayEvent } from '../src/gateway/index.js';
import type { LoggingMessageParams } from '../src/index.js';
import { Server, text } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { INPUT_HANDLERS } from './_setup.js';
import { PROTOCOL_FIXTURE, toolwireUpstream } from './_gateway.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

async function start(config: GatewayConfig): Promise<{ gateway: Gateway; events: GatewayEvent[] }> {
  const events: GatewayEvent[] = [];
  const gateway = createGateway(config, { onLog: () => undefined });
  gateway.on((event) => events.push(event));
  cleanup.push(() => gateway.close());
  await gateway.start();
  return { gateway, events };
}

async function connect(gateway: Gateway, options: ClientOptions = {}): Promise<Client> {
  const [clientEnd, serverEnd] = createLinkedPair();
  await gateway.server.connect(serverEnd);
  const client = new Client({ name: 'model', version: '1.0.0' }, options);
  await client.connect(clientEnd);
  cleanup.push(() => client.close());
  return client;
}

async function serve(server: Server): Promise<HttpServerHandle> {
  const handle = await serveHttp(server, { port: 0 });
  cleanup.push(() => handle.close());
  return handle;
}

/** The next event `match` accepts, from now on. */
function nextEvent(gateway: Gateway, match: (event: GatewayEvent) => boolean): Promise<GatewayEvent> {
  return new Promise((resolve) => {
    const off = gateway.on((event) => {
      if (!match(event)) return;
      off();
      resolve(event);
    });
  });
}

/**
 * `upstream` served over HTTP as the gateway's `web` (every call allowed), with a caller connected: once the
 * server is closed, the upstream stays down for the test (the gateway reconnects after 60 s).
 */
async function upstreamThatStaysDown(
  upstream: Server,
): Promise<{ web: HttpServerHandle; gateway: Gateway; client: Client }> {
  const web = await serve(upstream);
  const { gateway } = await start({
    upstreams: { web: { url: web.url } },
    policy: { default: 'allow' },
    reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
  });
  return { web, gateway, client: await connect(gateway) };
}

const text0 = (result: { content: { type: string }[] }) => (result.content[0] as { text?: string }).text;

describe('an upstream that stays down', () => {
  it('answers calls of its tools with isError results, and lists none of them', async () => {
    const upstream = new Server({ name: 'web', version: '1.0.0' });
    upstream.tool('ping', {}, () => text('pong'));
    const { web, gateway, client } = await upstreamThatStaysDown(upstream);
    expect(text0(await client.callTool('web__ping'))).toBe('pong');
    await web.close(); // the server is gone; the gateway learns it from the next call
    const failed = await client.callTool('web__ping');
    expect(failed.isError).toBe(true);
    expect(text0(failed)).toMatch(/^Upstream web failed to run ping: /);
    expect(gateway.upstreams()[0]).toMatchObject({ name: 'web', status: 'down' });
    // Down now: its tools are out of the list, and a call says why.
    expect(await client.listTools({ refresh: true })).toEqual([]);
    expect(await client.callTool('web__ping')).toEqual({
      content: [
        {
          type: 'text',
          text: expect.stringMatching(/^Upstream web is unavailable \(.+\); the gateway reconnects/),
        },
      ],
      isError: true,
    });
  });
});

describe('an upstream gone while a resource is read from it', () => {
  it('answers the read with -32603 naming the upstream, and takes the upstream as down', async () => {
    const upstream = new Server({ name: 'web', version: '1.0.0' });
    upstream.resource('file:///notes.txt', { name: 'notes' }, (uri) => ({ uri, text: 'hello' }));
    const { web, gateway, client } = await upstreamThatStaysDown(upstream);
    expect((await client.readResource('file:///notes.txt')).contents).toEqual([
      { uri: 'file:///notes.txt', text: 'hello' },
    ]);
    await web.close(); // the server is gone; the gateway learns it from the next read, as from a call
    await expect(client.readResource('file:///notes.txt')).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^Upstream web failed to read file:\/\/\/notes\.txt: /),
    });
    expect(gateway.upstreams()[0]).toMatchObject({ name: 'web', status: 'down' });
  });
});

describe('an upstream gone while a value is completed from it', () => {
  it('answers completion/complete with -32603 naming the upstream and what it completes, and takes it as down', async () => {
    const upstream = new Server({ name: 'web', version: '1.0.0' });
    const langs = ['go', 'rust', 'ts'];
    upstream.prompt(
      'review',
      { arguments: [{ name: 'lang', complete: (value) => langs.filter((l) => l.startsWith(value)) }] },
      ({ lang }) => `Review the ${lang ?? ''}`,
    );
    const { web, gateway, client } = await upstreamThatStaysDown(upstream);
    const prompt = { type: 'ref/prompt', name: 'web__review' } as const;
    expect((await client.complete(prompt, { name: 'lang', value: 'r' })).values).toEqual(['rust']);
    await web.close(); // the server is gone; the gateway learns it from the next completion, as from a read
    await expect(client.complete(prompt, { name: 'lang', value: 'r' })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^Upstream web failed to complete lang of prompt review: /),
    });
    expect(gateway.upstreams()[0]).toMatchObject({ name: 'web', status: 'down' });
  });

  it("names the upstream and the template variable for a template's completion lost on the way", async () => {
    const upstream = new Server({ name: 'web', version: '1.0.0' });
    upstream.resourceTemplate(
      'file:///{name}',
      { name: 'file', complete: { name: (value) => [`${value}.txt`] } },
      (uri) => ({ uri, text: 'hello' }),
    );
    const { web, gateway, client } = await upstreamThatStaysDown(upstream);
    const template = { type: 'ref/resource', uri: 'file:///{name}' } as const;
    expect((await client.complete(template, { name: 'name', value: 'a' })).values).toEqual(['a.txt']);
    await web.close();
    await expect(client.complete(template, { name: 'name', value: 'a' })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^Upstream web failed to complete name of file:\/\/\/\{name\}: /),
    });
    expect(gateway.upstreams()[0]).toMatchObject({ name: 'web', status: 'down' });
  });
});

describe.each([
  { era: 'handshake', protocolVersion: '2025-11-25' as const },
  { era: 'stateless', protocolVersion: '2026-07-28' as const },
])('relays to a $era-era caller', ({ protocolVersion }) => {
  it("relays the upstream's sampling, roots and log messages", async () => {
    const { gateway } = await start({
      upstreams: { fx: toolwireUpstream(PROTOCOL_FIXTURE, { protocolVersion: '2025-11-25' }) },
      policy: { default: 'allow' },
    });
    const logs: LoggingMessageParams[] = [];
    const client = await connect(gateway, {
      ...INPUT_HANDLERS,
      protocolVersion,
      onLog: (log) => logs.push(log),
    });
    expect(text0(await client.callTool('fx__sample'))).toBe('model said hello');
    expect(text0(await client.callTool('fx__roots'))).toBe('file:///r1,file:///r2');
    await client.setLoggingLevel('info');
    expect(text0(await client.callTool('fx__logs'))).toBe('logged');
    // The upstream's log messages of the call, as far as the caller's level lets them through.
    expect(logs.map((log) => [log.level, log.data])).toEqual([
      ['info', { msg: 'info' }],
      ['error', 'an error line'],
    ]);
  });
});

describe('names', () => {
  it('exposes the first of two tools that would share a name, and says why the second is not', async () => {
    const upstream = new Server({ name: 'web', version: '1.0.0' });
    upstream.tool('fs.read', {}, () => text('dotted'));
    upstream.tool('fs_read', {}, () => text('underscored'));
    upstream.tool('x'.repeat(70), {}, () => text('long'));
    const web = await serve(upstream);
    const { gateway, events } = await start({
      upstreams: { web: { url: web.url } },
      policy: { default: 'allow' },
    });
    const client = await connect(gateway);
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['web__fs_read']);
    expect(text0(await client.callTool('web__fs_read'))).toBe('dotted');
    const warnings = events.flatMap((event) => (event.type === 'warning' ? [event.message] : []));
    expect(warnings).toEqual([
      'upstream web: tool fs_read is not exposed: its name web__fs_read is taken by its tool fs.read (give the upstream another prefix)',
      `upstream web: tool ${'x'.repeat(70)} is not exposed: "web__${'x'.repeat(70)}" is longer than the 64 characters a tool name may have here`,
    ]);
  });
});

describe('an approved stateless-era call that asks its caller', () => {
  it('is approved once: the retry that brings the answer runs without a second approval', async () => {
    const upstream = new Server({ name: 'web', version: '1.0.0' });
    let runs = 0;
    upstream.tool('confirm', {}, async (_args, ctx) => {
      runs++;
      const answer = await ctx.elicit({
        message: 'Sure?',
        requestedSchema: { type: 'object', properties: {} },
      });
      return text(`${answer.action} after ${runs} runs`);
    });
    const web = await serve(upstream);
    const { gateway, events } = await start({
      upstreams: { web: { url: web.url } },
      policy: { rules: [{ tool: 'confirm', action: 'ask' }] },
    });
    gateway.on((event) => {
      if (event.type === 'approval.pending')
        void gateway.approvals.decide(event.approval.id, { approve: true, decidedBy: 'test' });
    });
    const client = await connect(gateway, {
      protocolVersion: '2026-07-28',
      elicitation: () => ({ action: 'accept', content: {} }),
    });
    const result = await client.callTool('web__confirm');
    expect(text0(result)).toMatch(/^accept after \d+ runs$/);
    expect(events.filter((event) => event.type === 'approval.pending')).toHaveLength(1);
    const calls = (await gateway.audit.list()).filter((record) => record.kind === 'call');
    expect(calls.map((record) => [record.decision, record.outcome])).toEqual([
      ['approved', 'input_required'],
      ['approved', 'ok'],
    ]);
  });

  it("passes the caller's cancellation on to the upstream call, which has its own for the caller's answers", async () => {
    const upstream = new Server({ name: 'web', version: '1.0.0' });
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    let stopped = false;
    upstream.tool('hold', {}, (_args, ctx) => {
      running();
      return new Promise((resolve) =>
        ctx.signal.addEventListener('abort', () => ((stopped = true), resolve(text('stopped')))),
      );
    });
    const web = await serve(upstream);
    const { gateway, events } = await start({
      upstreams: { web: { url: web.url } },
      policy: { default: 'allow' },
    });
    // A stateless-era caller that can be asked (it declares elicitation).
    const client = await connect(gateway, {
      protocolVersion: '2026-07-28',
      elicitation: () => ({ action: 'accept', content: {} }),
    });
    const controller = new AbortController();
    const call = client.callTool('web__hold', {}, { signal: controller.signal }).catch((e: unknown) => e);
    await started;
    controller.abort(new Error('enough'));
    expect(await call).toMatchObject({ code: 'REQUEST_CANCELLED' });
    await expect.poll(() => stopped).toBe(true);
    await expect
      .poll(() => events.find((event) => event.type === 'audit' && event.record.kind === 'call'))
      .toMatchObject({ record: { tool: 'hold', outcome: 'cancelled' } });
  });

  it('ends the call with an isError result when the approval is denied', async () => {
    const { gateway } = await start({
      upstreams: { fx: toolwireUpstream(PROTOCOL_FIXTURE) },
      policy: { rules: [{ tool: 'echo', action: 'ask' }] },
    });
    const client = await connect(gateway, { protocolVersion: '2026-07-28' });
    const pending = nextEvent(gateway, (event) => event.type === 'approval.pending');
    const call = client.callTool('fx__echo', { text: 'a' });
    const event = (await pending) as Extract<GatewayEvent, { type: 'approval.pending' }>;
    await gateway.approvals.decide(event.approval.id, { approve: false, reason: 'no', decidedBy: 'test' });
    expect(await call).toMatchObject({ isError: true });
  });
});

describe("the upstream's input schema", () => {
  it("checks the arguments against it before policy and upstream see them; a good call's result is still sanitized", async () => {
    const upstream = new Server({ name: 'web', version: '1.0.0' });
    const seen: unknown[] = [];
    const SCHEMA = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } as const;
    upstream.tool('square', { inputSchema: SCHEMA }, (args) => {
      seen.push(args);
      return text(`${args.n * args.n}; aws_key=AKIAIOSFODNN7EXAMPLE`);
    });
    const web = await serve(upstream);
    const { gateway } = await start({ upstreams: { web: { url: web.url } }, policy: { default: 'allow' } });
    const client = await connect(gateway);
    // Listed with the upstream's schema, as it is.
    expect((await client.listTools()).find((tool) => tool.name === 'web__square')?.inputSchema).toEqual(
      SCHEMA,
    );
    // Refused by the gateway itself (its name for the tool), never relayed.
    const refused = await client.callTool('web__square', { n: 'four' });
    expect(refused.isError).toBe(true);
    expect(text0(refused)).toMatch(/^Invalid arguments for tool web__square: /);
    // A good call: the upstream's result, with the key it leaked redacted by the gateway's server.
    expect(text0(await client.callTool('web__square', { n: 4 }))).toBe('16; aws_key=[REDACTED]');
    expect(seen).toEqual([{ n: 4 }]);
    const calls = (await gateway.audit.list()).filter((record) => record.kind === 'call');
    expect(calls.map((record) => [record.tool, record.decision, record.outcome])).toEqual([
      ['square', 'allowed', 'ok'],
    ]);
  });

  it("names the arguments' digest in every call's audit record, whether someone watches or not", async () => {
    const upstream = new Server({ name: 'web', version: '1.0.0' });
    upstream.tool('echo', { inputSchema: { type: 'object' } }, (args) => text(JSON.stringify(args)));
    const web = await serve(upstream);
    // Nobody watches this gateway (no listener, no sink): the digest is computed when the record is read.
    const quiet = createGateway({ upstreams: { web: { url: web.url } }, policy: { default: 'allow' } });
    cleanup.push(() => quiet.close());
    await quiet.start();
    const { gateway: watched, events } = await start({
      upstreams: { web: { url: web.url } },
      policy: { default: 'allow' },
    });
    const calls = [{ b: 1, a: { d: [2, { z: 1, y: 'ü' }], c: null } }, { text: 'x'.repeat(5_000) }, {}];
    for (const gateway of [quiet, watched]) {
      const client = await connect(gateway);
      for (const args of calls) expect((await client.callTool('web__echo', args)).isError).toBeUndefined();
      const records = (await gateway.audit.list()).filter((record) => record.kind === 'call');
      expect(records.map((record) => record.argumentsDigest)).toEqual(
        await Promise.all(calls.map((args) => argumentsDigest(args))),
      );
    }
    // The watched gateway's listeners had the same records, digests and all.
    const heard = events.flatMap((event) => (event.type === 'audit' ? [event.record] : []));
    expect(heard).toEqual(await watched.audit.list());
  });
});
