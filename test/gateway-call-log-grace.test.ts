// The call log while no event stream is open, on the wire: a gateway served in this process (`serveGateway`)
// in front of an HTTP upstream, a model calling through its MCP endpoint, and a console session on its
// decision API. A console's stream ends (the session signs out: its streams end before the answer, so no
// listener is left when the next call starts); the calls made then are listed to the console that comes
// back within the grace (`callLogGraceMs`, 60 s by default), with their arguments and results. With a grace
// of 0 they are not; a short grace ends, and the calls after it are not recorded (the audit log has them).
// Calls made before anyone ever watched are not in the call log either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway, serveGateway, type Gateway, type GatewayHttpHandle } from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { GatewayEvents } from './_gateway.js';

let upstream: HttpServerHandle;
const cleanup: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  const server = new Server({ name: 'notes', version: '1.0.0' });
  server.tool(
    'echo',
    {
      inputSchema: {
        type: 'object',
        properties: { words: { type: 'string' } },
        required: ['words'],
      } as const,
    },
    (args) => text(`echo: ${args.words}`),
  );
  upstream = await serveHttp(server, { port: 0 });
});

afterAll(async () => {
  for (const close of cleanup.reverse()) await close().catch(() => undefined);
  await upstream?.close();
});

interface Served {
  gateway: Gateway;
  served: GatewayHttpHandle;
  model: Client;
}

async function serve(callLogGraceMs?: number): Promise<Served> {
  const gateway = createGateway(
    { upstreams: { notes: { url: upstream.url } }, policy: { default: 'allow' } },
    { onLog: () => undefined, ...(callLogGraceMs === undefined ? {} : { callLogGraceMs }) },
  );
  await gateway.start();
  cleanup.push(() => gateway.close());
  const served = await serveGateway(gateway, { port: 0, api: { token: 'grace-test-token-0123456789' } });
  cleanup.push(() => served.close());
  const model = new Client({ name: 'model', version: '1.0.0' });
  await model.connect(new StreamableHttpClientTransport({ url: served.url! }));
  cleanup.push(() => model.close());
  return { gateway, served, model };
}

/** A console session: signs in, and reads and signs out with its cookie. */
async function console_(served: GatewayHttpHandle) {
  const signIn = await fetch(`${served.apiUrl}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-toolwire-console': '1' },
    body: JSON.stringify({ token: served.api.token }),
  });
  expect(signIn.status).toBe(200);
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  const request = (path: string, method = 'GET') =>
    fetch(`${served.apiUrl}${path}`, { method, headers: { cookie, 'x-toolwire-console': '1' } });
  return {
    /** Opens the event stream; resolves once its snapshot came (its listener is in place). */
    async events(): Promise<GatewayEvents> {
      const response = await request('/events');
      expect(response.status).toBe(200);
      const events = new GatewayEvents(response);
      await events.next('snapshot');
      return events;
    },
    /** The words of the listed calls, oldest first, with their ids. */
    async listed(): Promise<Array<{ id: number; words: unknown; result: unknown }>> {
      const response = await request('/calls');
      expect(response.status).toBe(200);
      const { calls } = (await response.json()) as { calls: Array<{ call: { id: number } }> };
      const records = await Promise.all(
        calls.map(async ({ call }) => {
          const one = await request(`/calls/${call.id}`);
          expect(one.status).toBe(200);
          return (await one.json()) as { arguments: { words: unknown }; result?: unknown };
        }),
      );
      return calls
        .map(({ call }, i) => ({
          id: call.id,
          words: records[i]!.arguments.words,
          result: records[i]!.result,
        }))
        .reverse();
    },
    /** Signs out: the session's event streams end before the answer. */
    async signOut(): Promise<void> {
      expect((await request('/session', 'DELETE')).status).toBe(200);
    },
  };
}

async function call(model: Client, words: string): Promise<void> {
  const result = await model.callTool('notes__echo', { words });
  expect(result.isError).toBeFalsy();
}

describe('the call log while no event stream is open', () => {
  it('lists the calls made while the console was away, once it comes back within the grace', async () => {
    const { served, model } = await serve();
    await call(model, 'before anyone watched');
    const first = await console_(served);
    const stream = await first.events();
    await call(model, 'watched');
    await first.signOut(); // its stream ends: no listener is left
    await stream.close();
    for (const words of ['away 1', 'away 2', 'away 3']) await call(model, words);

    const again = await console_(served);
    await again.events();
    const listed = await again.listed();
    expect(listed.map((entry) => entry.words)).toEqual(['watched', 'away 1', 'away 2', 'away 3']);
    expect(listed.at(-1)!.result).toEqual({ content: [{ type: 'text', text: 'echo: away 3' }] });
    // Sequential ids, the first (the call before anyone watched) not in the log: no gap among them.
    const ids = listed.map((entry) => entry.id);
    expect(ids).toEqual([2, 3, 4, 5]);
  });

  it('records nothing once the last stream is gone with callLogGraceMs: 0', async () => {
    const { served, model } = await serve(0);
    const first = await console_(served);
    const stream = await first.events();
    await call(model, 'watched');
    await first.signOut();
    await stream.close();
    await call(model, 'away');
    const again = await console_(served);
    expect((await again.listed()).map((entry) => entry.words)).toEqual(['watched']);
  });

  it('refuses a grace that is not a whole number of ms a timer can wait', () => {
    const config = { upstreams: { notes: { url: upstream.url } } };
    for (const callLogGraceMs of [-1, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => createGateway(config, { callLogGraceMs })).toThrow(TypeError);
    }
  });

  it('stops recording once the grace has passed', async () => {
    const { served, model } = await serve(200);
    const first = await console_(served);
    const stream = await first.events();
    await first.signOut();
    await stream.close();
    // Calls are recorded until the grace ends, then not: a call eventually goes unrecorded.
    let n = 0;
    await expect
      .poll(
        async () => {
          const words = `call ${++n}`;
          await call(model, words);
          const listed = await (await console_(served)).listed();
          return listed.some((entry) => entry.words === words);
        },
        { timeout: 10_000, interval: 50 },
      )
      .toBe(false);
  });
});
