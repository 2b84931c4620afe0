// `ctx.carry()` and `ctx.carried` on the wire: data of a handler's own that the signed `requestState` of a
// stateless-era `input_required` carries to the retry (over Streamable HTTP, raw requests), nothing in the
// handshake era (a toolwire client over HTTP).
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import type { JsonObject } from '../src/index.js';
import { Server, text, type RequestHandlerContext } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { META, answer, stateless } from './_http-stateless.js';

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

/** A tool that says what it was carried, carries `{ step }` on, and asks its question. */
async function start(): Promise<string> {
  const server = new Server({ name: 'carrier', version: '1.0.0' });
  server.tool('step', {}, async (_args, ctx) => {
    const seen = ctx.carried;
    ctx.carry({ step: typeof seen?.step === 'number' ? seen.step + 1 : 1 });
    const answer = await ctx.elicit({
      message: 'Go on?',
      requestedSchema: { type: 'object', properties: {} },
    });
    return text(JSON.stringify({ carried: seen ?? null, action: answer.action }));
  });
  // A prompt getter and a resource reader carry as a tool handler does.
  const stepped = async (ctx: RequestHandlerContext) => {
    const seen = ctx.carried;
    ctx.carry({ step: typeof seen?.step === 'number' ? seen.step + 1 : 1 });
    const answer = await ctx.elicit({
      message: 'Go on?',
      requestedSchema: { type: 'object', properties: {} },
    });
    return JSON.stringify({ carried: seen ?? null, action: answer.action });
  };
  server.prompt('step', {}, (_args, ctx) => stepped(ctx));
  server.resource('step://one', { name: 'one' }, (_uri, ctx) => stepped(ctx));
  handle = await serveHttp(server, { port: 0 });
  return handle.url;
}

const ASKABLE = META({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });
const ACCEPT = { 'elicit-1': { action: 'accept', content: {} } };

async function call(url: string, extra: JsonObject = {}): Promise<Record<string, unknown>> {
  return answer(
    await stateless(url, {
      method: 'tools/call',
      params: { name: 'step', arguments: {}, ...extra, _meta: ASKABLE },
    }),
  );
}

describe("a handler's carried data", () => {
  it('reaches the retry in the requestState of the input_required round, signed', async () => {
    const url = await start();
    const first = (await call(url)).result as JsonObject;
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { 'elicit-1': {} } });
    const state = first.requestState as string;
    // The payload carries it, in the clear but signed: a changed copy is refused.
    const [body, mac] = state.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as JsonObject;
    expect(payload.c).toEqual({ step: 1 });
    const forged = `${Buffer.from(JSON.stringify({ ...payload, c: { step: 41 } })).toString('base64url')}.${mac}`;
    expect(await call(url, { requestState: forged, inputResponses: ACCEPT })).toMatchObject({
      error: { code: -32602, message: 'Invalid params: invalid requestState', data: { reason: 'forged' } },
    });
    const done = (await call(url, { requestState: state, inputResponses: ACCEPT })).result as {
      content: { text: string }[];
    };
    expect(JSON.parse(done.content[0]!.text)).toEqual({ carried: { step: 1 }, action: 'accept' });
  });

  it.each([
    ['prompts/get', { name: 'step' }],
    ['resources/read', { uri: 'step://one' }],
  ] as const)("reaches a %s retry too (a prompt getter's, a resource reader's)", async (method, params) => {
    const url = await start();
    const request = (extra: JsonObject = {}) =>
      stateless(url, { method, params: { ...params, ...extra, _meta: ASKABLE } }).then(answer);
    const first = (await request()).result as JsonObject;
    expect(first).toMatchObject({ resultType: 'input_required' });
    const done = (await request({ requestState: first.requestState as string, inputResponses: ACCEPT }))
      .result as { messages?: { content: { text: string } }[]; contents?: { text: string }[] };
    const said = done.messages?.[0]?.content.text ?? done.contents?.[0]?.text;
    expect(JSON.parse(said!)).toEqual({ carried: { step: 1 }, action: 'accept' });
  });

  it('is nothing in the handshake era: carried is undefined and carry does nothing', async () => {
    const url = await start();
    const client = new Client(
      { name: 'model', version: '1.0.0' },
      { protocolVersion: '2025-11-25', elicitation: () => ({ action: 'accept', content: {} }) },
    );
    await client.connect(new StreamableHttpClientTransport({ url }));
    try {
      const result = await client.callTool('step');
      expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({
        carried: null,
        action: 'accept',
      });
    } finally {
      await client.close();
    }
  });
});
