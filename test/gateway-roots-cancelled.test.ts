// An upstream cancelling (`notifications/cancelled`) the `roots/list` it asked during a call, which the gateway
// relayed to the host that made the call: the host's relayed `roots/list` is cancelled too, before anything
// the upstream sends after it, as a relayed elicitation or sampling request's is. The upstream: a toolwire
// server over Streamable HTTP (2025-11-25) whose tool asks for roots, cancels that once the host has it, then
// asks a form; the host: a toolwire client on the gateway's Streamable HTTP that holds the roots until
// cancelled. Before, the host's roots/list stayed open until the call ended.
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway, serveGateway } from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { serveHttp } from '../src/transports/http/index.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

describe('an upstream cancelling the roots/list it asked during a call', () => {
  it('cancels the roots/list relayed to the host, before its next question reaches the host', async () => {
    let hostAsked!: () => void;
    const asked = new Promise<void>((resolve) => (hostAsked = resolve));
    const upstream = new Server({ name: 'roots-asker', version: '1.0.0' });
    upstream.tool('ask', {}, async (_args, ctx) => {
      const stop = new AbortController();
      const roots = ctx.listRoots({ signal: stop.signal }).then(
        () => 'answered',
        () => 'cancelled',
      );
      await asked;
      stop.abort(new Error('no longer needed'));
      const form = await ctx.elicit({
        message: 'after the roots',
        requestedSchema: { type: 'object', properties: {} },
      });
      return text(`${await roots}, ${form.action}`);
    });
    const web = await serveHttp(upstream, { port: 0 });
    cleanup.push(() => web.close());
    const gateway = createGateway(
      { upstreams: { up: { url: web.url, protocolVersion: '2025-11-25' } }, policy: { default: 'allow' } },
      { onLog: () => undefined },
    );
    cleanup.push(() => gateway.close());
    await gateway.start();
    const served = await serveGateway(gateway, { port: 0, console: false });
    cleanup.push(() => served.close());

    let rootsSignal: AbortSignal | undefined;
    let cancelledBeforeForm: boolean | undefined;
    const host = new Client(
      { name: 'host', version: '1.0.0' },
      {
        protocolVersion: '2025-11-25',
        // Held until the gateway cancels it.
        roots: ({ signal }) =>
          new Promise((resolve) => {
            rootsSignal = signal;
            signal.addEventListener('abort', () => resolve([]), { once: true });
            hostAsked();
          }),
        elicitation: () => {
          cancelledBeforeForm = rootsSignal?.aborted;
          return { action: 'accept', content: {} };
        },
      },
    );
    await host.connect(new StreamableHttpClientTransport({ url: served.url! }));
    cleanup.push(() => host.close());
    const result = await host.callTool('up__ask', {});
    expect(result.content).toEqual([{ type: 'text', text: 'cancelled, accept' }]);
    expect(cancelledBeforeForm).toBe(true);
  });
});
