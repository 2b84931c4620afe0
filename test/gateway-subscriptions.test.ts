// Resource subscriptions through the gateway, end to end with real processes: `toolwire gateway --http`
// in front of the toolwire listen fixture (a handshake-era upstream whose `change` tool sends
// resources/updated for the URIs it is given) and the official server-everything (whose subscribe and
// unsubscribe handlers log what they got, which the gateway prints). Downstream: SDK 1.x clients
// (resources/subscribe) and a toolwire client in the stateless era (subscriptions/listen).
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway, type GatewayEvent } from '../src/gateway/index.js';
import type { Server } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { serveHttp } from '../src/transports/http/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import {
  EVERYTHING,
  startGateway,
  toolwireUpstream,
  waitForLine,
  writeConfig,
  type RunningGateway,
} from './_gateway.js';

const LISTEN = fileURLToPath(new URL('./fixtures/listen-server.mjs', import.meta.url));

let gateway: RunningGateway;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const config = writeConfig({
    upstreams: {
      fx: toolwireUpstream(LISTEN, { protocolVersion: '2025-11-25' }),
      everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' },
    },
    policy: { default: 'allow' },
  });
  gateway = await startGateway(['--config', config]);
}, 60_000);

afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await gateway?.close();
});

/** An SDK 1.x client that records every resources/updated it gets; `next(uri)` waits for one. */
async function subscriber() {
  const client = new ClientV1({ name: 'subscriber', version: '1.0.0' });
  await client.connect(new HttpV1(new URL(gateway.url)));
  closers.push(() => client.close());
  const got: string[] = [];
  const waiting = new Map<string, () => void>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    got.push(notification.params.uri);
    waiting.get(notification.params.uri)?.();
  });
  return {
    client,
    got,
    next: (uri: string) =>
      got.includes(uri) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(uri, resolve)),
  };
}

describe('resource subscriptions through the gateway', () => {
  it('relays resources/updated from a handshake-era upstream to the sessions subscribed, URIs kept', async () => {
    const a = await subscriber();
    const b = await subscriber();
    await a.client.subscribeResource({ uri: 'test://watched-resource' });
    await a.client.subscribeResource({ uri: 'test://static-json' });
    await a.client.unsubscribeResource({ uri: 'test://static-json' });
    await b.client.subscribeResource({ uri: 'test://static-text' });
    // A URI of a template, subscribed to by a stateless-era caller (its subscriptions/listen stream).
    const stateless = new Client(
      { name: 'stateless-subscriber', version: '1.0.0' },
      { protocolVersion: '2026-07-28' },
    );
    await stateless.connect(new StreamableHttpClientTransport({ url: gateway.url }));
    closers.push(() => stateless.close());
    const statelessGot: string[] = [];
    const templated = new Promise<void>((resolve) =>
      stateless.onResourceUpdated((uri) => {
        statelessGot.push(uri);
        if (uri === 'test://template/7/data') resolve();
      }),
    );
    await stateless.subscribeResource('test://template/7/data');

    const updated = [
      'test://static-json',
      'test://watched-resource',
      'test://template/7/data',
      'test://static-text',
    ];
    const result = await a.client.callTool({ name: 'fx__change', arguments: { updated } });
    expect(result.isError).not.toBe(true);
    await a.next('test://watched-resource');
    await b.next('test://static-text');
    await templated;
    // Each session got its own URIs only (those before them on the wire came first, had they been sent).
    expect(a.got).toEqual(['test://watched-resource']);
    expect(b.got).toEqual(['test://static-text']);
    expect(statelessGot).toEqual(['test://template/7/data']);
  });

  it('subscribes the upstream once a caller subscribes, unsubscribes it when the last one leaves', async () => {
    const a = await subscriber();
    const b = await subscriber();
    const { resources } = await a.client.listResources();
    const uri = resources.find((resource) =>
      resource.uri.startsWith('demo://resource/static/document/'),
    )!.uri;
    const subscribedUpstream = `[everything] info: Received Subscribe Resource request for URI: ${uri}`;
    const unsubscribedUpstream = `[everything] info: Received Unsubscribe Resource request: ${uri}`;
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    await a.client.subscribeResource({ uri });
    await waitForLine(() => gateway.stderr(), new RegExp(escape(subscribedUpstream)), gateway.child);
    await b.client.subscribeResource({ uri });
    // server-everything sends an update for each URI it was subscribed to when the tool is called.
    await a.client.callTool({ name: 'everything__toggle-subscriber-updates', arguments: {} });
    await Promise.all([a.next(uri), b.next(uri)]);
    await a.client.unsubscribeResource({ uri });
    await b.client.unsubscribeResource({ uri });
    await waitForLine(() => gateway.stderr(), new RegExp(escape(unsubscribedUpstream)), gateway.child);
    // Subscribed once upstream for the two callers, and unsubscribed once.
    const count = (text: string) => gateway.stderr().split(text).length - 1;
    expect(count(subscribedUpstream)).toBe(1);
    expect(count(unsubscribedUpstream)).toBe(1);
  });
});

describe('a subscription whose session is gone', () => {
  it('is released upstream once the gateway notices (at a later subscription)', async () => {
    const a = new ClientV1({ name: 'leaver', version: '1.0.0' });
    const transport = new HttpV1(new URL(gateway.url));
    await a.connect(transport);
    const uri = 'demo://resource/dynamic/text/1000';
    await a.subscribeResource({ uri });
    await waitForLine(
      () => gateway.stderr(),
      new RegExp(`Received Subscribe Resource request for URI: ${uri}\\b`),
      gateway.child,
    );
    await transport.terminateSession(); // the session ends without unsubscribing
    await a.close();
    const b = await subscriber();
    // Enough new subscriptions for the gateway to look for gone sessions (it does every so often).
    for (let id = 2000; id < 2150; id++)
      await b.client.subscribeResource({ uri: `demo://resource/dynamic/text/${id}` });
    await waitForLine(
      () => gateway.stderr(),
      new RegExp(`Received Unsubscribe Resource request: ${uri}\\b`),
      gateway.child,
    );
  });
});

describe('a subscription across an upstream restart', () => {
  it('subscribes a stateless-era HTTP upstream again once it is back, and relays its updates', async () => {
    const fixture = (await import(new URL('./fixtures/listen-server.mjs', import.meta.url).href)) as {
      default: () => Server;
    };
    let web = await serveHttp(fixture.default(), { port: 0 });
    const port = Number(new URL(web.url).port);
    const gateway = createGateway(
      {
        upstreams: { web: { url: web.url } },
        policy: { default: 'allow' },
        reconnect: { initialDelayMs: 20, maxDelayMs: 100, checkIntervalMs: 50 },
      },
      { onLog: () => undefined },
    );
    const status = (wanted: string) =>
      new Promise<void>((resolve) => {
        const off = gateway.on((event: GatewayEvent) => {
          if (event.type !== 'upstream.status' || event.status !== wanted) return;
          off();
          resolve();
        });
      });
    const [clientEnd, serverEnd] = createLinkedPair();
    const client = new Client({ name: 'subscriber', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
    try {
      await gateway.start();
      expect(gateway.upstreams()[0]).toMatchObject({ status: 'ready', protocolVersion: '2026-07-28' });
      await gateway.server.connect(serverEnd);
      await client.connect(clientEnd);
      const got: string[] = [];
      let onUpdate: (() => void) | undefined;
      client.onResourceUpdated((uri) => {
        got.push(uri);
        onUpdate?.();
      });
      const updated = () => new Promise<void>((resolve) => (onUpdate = resolve));
      await client.subscribeResource('test://watched-resource');
      let next = updated();
      await client.callTool('web__change', { updated: ['test://watched-resource'] });
      await next;
      expect(got).toEqual(['test://watched-resource']);

      // The upstream goes away and comes back, a new server that knows no subscription.
      const down = status('down');
      await web.close();
      await down;
      const ready = status('ready');
      web = await serveHttp(fixture.default(), { port });
      await ready;
      next = updated();
      await client.callTool('web__change', { updated: ['test://watched-resource'] });
      await next;
      expect(got).toEqual(['test://watched-resource', 'test://watched-resource']);
    } finally {
      await client.close().catch(() => undefined);
      await gateway.close();
      await web.close();
    }
  });
});
