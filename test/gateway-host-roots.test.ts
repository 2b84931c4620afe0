// The roots of a gateway with one host (`toolwire gateway --stdio`, `gateway.connectHost`) are that host's:
// an upstream that reads `roots/list` when it is initialized, or on `notifications/roots/list_changed`,
// outside any call, gets them once the host has initialized and declared roots, and the host's
// list_changed reaches it. Before, such an upstream saw no roots behind the gateway: only a question during
// a call reached the caller. A gateway with other connections (HTTP) keeps roots to calls: no host supplies
// or learns another's.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway, serveGateway, type Gateway } from '../src/gateway/index.js';
import type { Root } from '../src/index.js';
import { Server } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { serveHttp } from '../src/transports/http/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { BIN, EVERYTHING, TOKEN, writeConfig } from './_gateway.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

describe('toolwire gateway --stdio in front of server-everything, which reads roots when initialized', () => {
  it("gives it the host's roots, and the host's roots/list_changed makes it read them again", async () => {
    const config = writeConfig({
      upstreams: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' } },
      policy: { default: 'allow' },
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'gateway', '--stdio', '--config', config],
      env: { ...(process.env as Record<string, string>), TOOLWIRE_TOKEN: TOKEN },
      stderr: 'pipe',
    });
    // server-everything logs each roots list it receives; with no call in flight that is the gateway's line.
    const counts: number[] = [];
    const waiters: { count: number; resolve: () => void }[] = [];
    const received = (count: number) =>
      new Promise<void>((resolve) => {
        if (counts.includes(count)) resolve();
        else waiters.push({ count, resolve });
      });
    createInterface({ input: transport.stderr as Readable }).on('line', (line) => {
      const count = /Roots updated: (\d+) root\(s\)/.exec(line)?.[1];
      if (count === undefined) return;
      counts.push(Number(count));
      for (const waiter of waiters) if (waiter.count === Number(count)) waiter.resolve();
    });
    let roots: Root[] = [{ uri: 'file:///work/project', name: 'project' }];
    const host = new ClientV1(
      { name: 'ide', version: '1.0.0' },
      { capabilities: { roots: { listChanged: true } } },
    );
    host.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
    await host.connect(transport);
    cleanup.push(() => host.close());
    const listed = async () => {
      const result = await host.callTool({ name: 'everything__get-roots-list', arguments: {} });
      return (result as { content: { text: string }[] }).content[0]!.text;
    };

    // Read at its initialization (before the host's, so none), then again once the host initialized.
    await received(1);
    expect(await listed()).toContain('1. project\n   URI: file:///work/project');

    roots = [...roots, { uri: 'file:///work/docs', name: 'docs' }];
    await host.sendRootsListChanged();
    await received(2);
    expect(await listed()).toContain('2. docs\n   URI: file:///work/docs');
  }, 30_000);
});

/** A toolwire upstream over HTTP (handshake era) that asks the gateway's roots outside any call. */
async function askingUpstream() {
  let changed = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = new Server(
    { name: 'files', version: '1.0.0' },
    {
      onRootsListChanged: () => {
        changed++;
        for (const waiter of waiters) if (waiter.count <= changed) waiter.resolve();
      },
    },
  );
  server.tool('noop', { description: 'Does nothing' }, () => 'ok');
  const handle = await serveHttp(server, { port: 0 });
  cleanup.push(() => handle.close());
  /** The gateway's roots, asked on the gateway's connection (its standalone stream), as no call's. */
  const roots = async () => {
    const [connection] = [...server.connections].filter((c) => c.ready);
    return (await connection!.listRoots()).roots.map((root) => root.uri);
  };
  /** Resolves once the gateway has sent `count` roots/list_changed. */
  const changes = (count: number) =>
    new Promise<void>((resolve) => {
      if (changed >= count) resolve();
      else waiters.push({ count, resolve });
    });
  return { url: handle.url, roots, changes };
}

async function gatewayFor(url: string): Promise<Gateway> {
  const gateway = createGateway(
    { upstreams: { files: { url, protocolVersion: '2025-11-25' } }, policy: { default: 'allow' } },
    { onLog: () => undefined },
  );
  cleanup.push(() => gateway.close());
  await gateway.start();
  return gateway;
}

const ROOTS: Root[] = [{ uri: 'file:///home/ada/project' }];

describe('gateway.connectHost', () => {
  it("answers an upstream's roots/list outside any call with its host's roots, none before the host initialized", async () => {
    const upstream = await askingUpstream();
    const gateway = await gatewayFor(upstream.url);
    expect(await upstream.roots()).toEqual([]);
    const [hostEnd, gatewayEnd] = createLinkedPair();
    await gateway.connectHost(gatewayEnd);
    const host = new Client(
      { name: 'ide', version: '1.0.0' },
      { roots: ROOTS, protocolVersion: '2025-11-25' },
    );
    await host.connect(hostEnd);
    cleanup.push(() => host.close());
    // Its initialization made the host's roots the gateway's: the upstream hears that they changed.
    await upstream.changes(1);
    expect(await upstream.roots()).toEqual(['file:///home/ada/project']);
  });

  it('gives no roots while the server has another connection, whose host must not learn them', async () => {
    const upstream = await askingUpstream();
    const gateway = await gatewayFor(upstream.url);
    const [hostEnd, gatewayEnd] = createLinkedPair();
    await gateway.connectHost(gatewayEnd);
    const host = new Client(
      { name: 'ide', version: '1.0.0' },
      { roots: ROOTS, protocolVersion: '2025-11-25' },
    );
    await host.connect(hostEnd);
    cleanup.push(() => host.close());
    await upstream.changes(1);
    const [otherEnd, otherGatewayEnd] = createLinkedPair();
    const connection = await gateway.server.connect(otherGatewayEnd);
    const closed = new Promise<void>((resolve) => (connection.onclose = resolve));
    const other = new Client({ name: 'other', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
    await other.connect(otherEnd);
    cleanup.push(() => other.close());
    expect(await upstream.roots()).toEqual([]);
    await other.close();
    await closed;
    expect(await upstream.roots()).toEqual(['file:///home/ada/project']);
  });

  it("fails the upstream's roots/list with -32603 saying why when the host cannot answer, rather than none", async () => {
    const upstream = await askingUpstream();
    const warnings: string[] = [];
    const gateway = await gatewayFor(upstream.url);
    gateway.on((event) => void (event.type === 'warning' && warnings.push(event.message)), ['warning']);
    const [hostEnd, gatewayEnd] = createLinkedPair();
    await gateway.connectHost(gatewayEnd);
    const host = new Client(
      { name: 'ide', version: '1.0.0' },
      {
        protocolVersion: '2025-11-25',
        roots: () => {
          throw new Error('the workspace is not open yet');
        },
      },
    );
    await host.connect(hostEnd);
    cleanup.push(() => host.close());
    await upstream.changes(1);
    await expect(upstream.roots()).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("the gateway could not read its host's roots") as unknown,
    });
    expect(warnings).toEqual([expect.stringContaining("the host's roots could not be read") as unknown]);
  });

  it('refuses a second host while the first is connected', async () => {
    const upstream = await askingUpstream();
    const gateway = await gatewayFor(upstream.url);
    await gateway.connectHost(createLinkedPair()[1]);
    await expect(gateway.connectHost(createLinkedPair()[1])).rejects.toMatchObject({
      code: 'ALREADY_CONNECTED',
    });
  });
});

describe('a gateway served over HTTP', () => {
  it("keeps a host's roots to its calls: an upstream's roots/list outside any call gets none", async () => {
    const upstream = await askingUpstream();
    const gateway = await gatewayFor(upstream.url);
    const served = await serveGateway(gateway, { port: 0, console: false });
    cleanup.push(() => served.close());
    const host = new Client(
      { name: 'ide', version: '1.0.0' },
      { roots: ROOTS, protocolVersion: '2025-11-25' },
    );
    await host.connect(new StreamableHttpClientTransport({ url: served.url! }));
    cleanup.push(() => host.close());
    expect(await upstream.roots()).toEqual([]);
  });
});
