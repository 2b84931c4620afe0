// Paging the pending approvals (`GET /api/approvals?limit=N&cursor=…`), on the memory store and on a real
// Redis: with calls held for a person and pages of 4, while approvals are decided between pages (some already
// listed, some not yet) and new calls arrive, every approval pending throughout is listed exactly once and no
// approval twice; the last page has no cursor; a cursor the gateway did not give and a limit past the most
// are 400s (test/gateway-redis-approvals-cut.test.ts has `toolwire approvals list` page). Every wait is for
// an event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import {
  createGateway,
  MAX_APPROVALS_PAGE_SIZE,
  serveGateway,
  type Gateway,
  type GatewayHttpHandle,
  type GatewayStores,
} from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { GatewayEvents, servedApi } from './_gateway.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

interface Page {
  approvals: { id: string }[];
  total: number;
  nextCursor?: string;
  truncated?: true;
}

describe.each(['memory', 'redis'] as const)('paging the pending approvals (%s store)', (kind) => {
  let redis: RedisServerHandle | undefined;
  let stores: RedisStores | undefined;
  let upstream: HttpServerHandle;
  let gateway: Gateway;
  let served: GatewayHttpHandle;
  let model: Client;
  let events: GatewayEvents;
  const calls: Promise<unknown>[] = [];

  beforeAll(async () => {
    let shared: GatewayStores = {};
    if (kind === 'redis') {
      redis = await startRedis();
      stores = redisStores(redis.url, { prefix: 'paging:' });
      const { approvals, grants, audit, calls: log, bus } = stores;
      shared = { approvals, grants, audit, calls: log, bus };
    }
    const server = new Server({ name: 'files', version: '1.0.0' });
    server.tool('write', { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, (args) =>
      text(`wrote ${String((args as { n: number }).n)}`),
    );
    upstream = await serveHttp(server, { port: 0 });
    gateway = createGateway(
      { upstreams: { files: { url: upstream.url } }, policy: { default: 'ask' } },
      { onLog: () => undefined, stores: shared },
    );
    await gateway.start();
    served = await serveGateway(gateway, { port: 0, console: false });
    model = new Client({ name: 'model', version: '1.0.0' });
    await model.connect(new StreamableHttpClientTransport({ url: served.url! }));
    events = new GatewayEvents(await servedApi(served, '/events'));
  });

  afterAll(async () => {
    await events?.close();
    for (const id of await pendingIds().catch(() => [])) await api(`/approvals/${id}/deny`, {});
    await Promise.allSettled(calls);
    await model?.close().catch(() => undefined);
    await served?.close();
    await gateway?.close();
    await upstream?.close();
    await stores?.close();
    await redis?.close();
  });

  const api = (path: string, body?: unknown) => servedApi(served, path, body);
  const page = async (query: string) => {
    const response = await api(`/approvals${query}`);
    expect(response.status).toBe(200);
    return (await response.json()) as Page;
  };
  async function pendingIds(): Promise<string[]> {
    return (await page(`?limit=${MAX_APPROVALS_PAGE_SIZE}`)).approvals.map((a) => a.id);
  }
  /** Makes `count` calls the policy holds; resolves with their approvals' ids once each is pending. */
  async function hold(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++)
      calls.push(model.callTool('files__write', { n: i }).catch(() => undefined));
    for (let i = 0; i < count; i++)
      ids.push(((await events.next('approval.pending')).approval as { id: string }).id);
    return ids;
  }

  it('lists every approval pending throughout exactly once while others are decided and arrive', async () => {
    const first = await hold(23);
    const seen: string[] = [];
    const decided = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const listing = await page(`?limit=4${cursor === undefined ? '' : `&cursor=${cursor}`}`);
      pages++;
      expect(listing.approvals.length).toBeLessThanOrEqual(4);
      seen.push(...listing.approvals.map((a) => a.id));
      cursor = listing.nextCursor;
      if (cursor !== undefined) expect(listing.truncated).toBe(true);
      // Between pages: one listed already and one not yet listed are decided, and a new call is held.
      const listedOne = seen.find((id) => !decided.has(id));
      const laterOne = first.find((id) => !seen.includes(id) && !decided.has(id));
      for (const id of [listedOne, laterOne]) {
        if (id === undefined || pages % 2 === 0) continue;
        expect((await api(`/approvals/${id}/deny`, {})).status).toBe(200);
        decided.add(id);
      }
      if (pages <= 3) await hold(1);
    } while (cursor !== undefined && pages < 50);

    expect(new Set(seen).size).toBe(seen.length); // none twice
    for (const id of first) if (!decided.has(id)) expect(seen).toContain(id); // each pending throughout, once
    expect(pages).toBeGreaterThan(5);
    const left = await pendingIds();
    expect(left.length).toBe(23 + 3 - decided.size);
  });

  it('refuses a cursor it did not give and a limit past the most', async () => {
    for (const query of [
      '?cursor=nope!',
      `?cursor=${Buffer.from('[1,2]').toString('base64url')}`,
      '?limit=0',
    ]) {
      const response = await api(`/approvals${query}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'INVALID_REQUEST' } });
    }
    const tooMany = await api(`/approvals?limit=${MAX_APPROVALS_PAGE_SIZE + 1}`);
    expect(tooMany.status).toBe(400);
  });
});
