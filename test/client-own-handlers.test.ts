// A request's own input handlers (`ExchangeOptions.handlers`): the stateless era's input_required rounds
// and the handshake era's server requests reach the handlers of the call they belong to, when the client
// can tell which call that is. The gateway relays an upstream's questions to its caller with them.
import { describe, expect, it } from 'vitest';
import { Client, type ClientHandlers } from '../src/client/index.js';
import { Server, text } from '../src/server/index.js';
import { inProcessHttp, linkServer } from './_setup.js';

const CLIENT_WIDE: ClientHandlers = {
  elicitation: () => ({ action: 'accept', content: { name: 'client-wide' } }),
};

/** A server whose `ask` tool asks for a name once, and whose `gate` tool waits until `open` is called. */
function askingServer() {
  const server = new Server({ name: 'asking', version: '1.0.0' });
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let waiting: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (waiting = resolve));
  server.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return text(`${answer.action}:${String(answer.content?.name ?? '')}`);
  });
  server.tool('gate', {}, async () => {
    waiting();
    await opened;
    return text('opened');
  });
  return { server, open, started };
}

const own = (name: string): ClientHandlers => ({
  elicitation: () => ({ action: 'accept', content: { name } }),
});

describe.each([
  { era: 'handshake', protocolVersion: '2025-11-25' as const },
  { era: 'stateless', protocolVersion: '2026-07-28' as const },
])('a call with its own handlers ($era era)', ({ protocolVersion }) => {
  it('answers the server with the handlers of the call, not the client-wide ones', async () => {
    const { server } = askingServer();
    await using c = await linkServer(server, { ...CLIENT_WIDE, protocolVersion });
    expect((await c.client.callTool('ask', {}, { handlers: own('caller') })).content).toEqual([
      { type: 'text', text: 'accept:caller' },
    ]);
    expect((await c.client.callTool('ask')).content).toEqual([{ type: 'text', text: 'accept:client-wide' }]);
  });
});

describe('a call with its own handlers (handshake era, several calls in flight)', () => {
  it('answers with the client-wide handlers when two calls with handlers are in flight', async () => {
    const { server, open, started } = askingServer();
    await using c = await linkServer(server, { ...CLIENT_WIDE, protocolVersion: '2025-11-25' });
    const gate = c.client.callTool('gate', {}, { handlers: own('gate') });
    await started;
    const asked = await c.client.callTool('ask', {}, { handlers: own('caller') });
    expect(asked.content).toEqual([{ type: 'text', text: 'accept:client-wide' }]);
    open();
    expect((await gate).content).toEqual([{ type: 'text', text: 'opened' }]);
    // Alone again: its own handlers answer.
    expect((await c.client.callTool('ask', {}, { handlers: own('alone') })).content).toEqual([
      { type: 'text', text: 'accept:alone' },
    ]);
  });
});

describe('a call with its own handlers (handshake era, over Streamable HTTP)', () => {
  /** A client of `server` over Streamable HTTP (in process), client-wide handlers as `CLIENT_WIDE`. */
  async function overHttp(server: Server) {
    const { transport, handler } = inProcessHttp(server);
    const client = new Client(
      { name: 'host', version: '1.0.0' },
      { ...CLIENT_WIDE, protocolVersion: '2025-11-25' },
    );
    await client.connect(transport);
    return {
      client,
      [Symbol.asyncDispose]: async () => {
        await client.close();
        await handler.close();
        await server.close();
      },
    };
  }

  it("answers a request on a call's POST stream with that call's handlers, whatever else is in flight", async () => {
    const { server, open, started } = askingServer();
    await using c = await overHttp(server);
    const gate = c.client.callTool('gate', {}, { handlers: own('gate') });
    await started;
    const asked = await c.client.callTool('ask', {}, { handlers: own('caller') });
    expect(asked.content).toEqual([{ type: 'text', text: 'accept:caller' }]);
    open();
    expect((await gate).content).toEqual([{ type: 'text', text: 'opened' }]);
  });

  it("answers a request on the POST stream of a call without handlers of its own with the client's, not another call's", async () => {
    const { server, open, started } = askingServer();
    await using c = await overHttp(server);
    const gate = c.client.callTool('gate', {}, { handlers: own('gate') });
    await started;
    expect((await c.client.callTool('ask')).content).toEqual([{ type: 'text', text: 'accept:client-wide' }]);
    open();
    await gate;
  });

  it('keeps two calls that share one options object apart', async () => {
    const { server, open, started } = askingServer();
    await using c = await overHttp(server);
    const options = { handlers: own('shared') };
    const gate = c.client.callTool('gate', {}, options);
    await started;
    const gateOnly = c.client.callTool('gate', {}, options);
    expect((await c.client.callTool('ask', {}, options)).content).toEqual([
      { type: 'text', text: 'accept:shared' },
    ]);
    open();
    await Promise.all([gate, gateOnly]);
  });
});
