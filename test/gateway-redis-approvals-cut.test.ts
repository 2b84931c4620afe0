// A gateway on a real Redis (a throwaway redis-server) whose approval listing stops at its budget
// (`maxListedApprovals`, 4,000 by default; 2 here): with 3 calls held, `GET /api/approvals` lists the 2
// oldest and says `total: 3, truncated: true` with the cursor of the next page, the event stream's snapshot
// says the same, and `toolwire approvals list` (a process) pages through all 3. Once one is decided, the rest
// fit one page and nothing is cut. Every wait is for an event or an answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../src/client/index.js';
import type { GatewayHttpHandle } from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import { runCli } from './_cli.js';
import { GatewayEvents, servedApi } from './_gateway.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { serveGatewayFor, type ServedGateway } from './_served-gateway.js';

let redis: RedisServerHandle;
let stores: RedisStores;
let setup: ServedGateway | undefined;
let served: GatewayHttpHandle;
let model: Client;

beforeAll(async () => {
  redis = await startRedis();
  stores = redisStores(redis.url, { prefix: 'cut:', gateway: { maxListedApprovals: 2 } });
  const server = new Server({ name: 'files', version: '1.0.0' });
  server.tool('write', { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, (args) =>
    text(`wrote ${String((args as { n: number }).n)}`),
  );
  setup = await serveGatewayFor(server, {
    config: { policy: { default: 'ask' } },
    options: {
      stores: {
        approvals: stores.approvals,
        grants: stores.grants,
        audit: stores.audit,
        calls: stores.calls,
        bus: stores.bus,
      },
    },
  });
  ({ served, model } = setup);
});

afterAll(async () => {
  await setup?.close();
  await stores?.close();
  await redis?.close();
});

const api = (path: string, body?: unknown) => servedApi(served, path, body);

interface Listing {
  approvals: { id: string; arguments?: { n: number } }[];
  total: number;
  truncated?: true;
}

describe('a listing of pending approvals cut at its budget', () => {
  it('says how many wait in all: the API, the snapshot, toolwire approvals list', async () => {
    const events = new GatewayEvents(await api('/events'));
    const calls = [1, 2, 3].map((n) => model.callTool('files__write', { n }));
    const held: string[] = [];
    for (let i = 0; i < 3; i++) {
      const pending = await events.next('approval.pending');
      held.push((pending.approval as { id: string }).id);
    }
    await events.close();

    const listing = (await (await api('/approvals')).json()) as Listing;
    expect(listing.approvals).toHaveLength(2);
    expect(listing).toMatchObject({ total: 3, truncated: true, nextCursor: expect.any(String) });

    const watcher = new GatewayEvents(await api('/events'));
    const snapshot = (await watcher.next('snapshot')) as unknown as Listing;
    expect(snapshot.approvals).toHaveLength(2);
    expect(snapshot).toMatchObject({ total: 3, truncated: true });
    await watcher.close();

    const env = { TOOLWIRE_TOKEN: served.api.token };
    const cli = await runCli(['approvals', 'list', '--gateway', served.apiUrl], { env });
    expect(cli.code).toBe(0);
    expect(cli.stdout).not.toContain('showing');
    for (const id of held) expect(cli.stdout).toContain(id);
    const json = await runCli(['approvals', 'list', '--gateway', served.apiUrl, '--json'], { env });
    const all = JSON.parse(json.stdout) as Listing;
    // Every one once, across pages (their order, by creation time then id, is the store contract's to check).
    expect(all.approvals.map((a) => a.id).sort()).toEqual([...held].sort());
    expect(all).toMatchObject({ total: 3 });
    expect(all).not.toHaveProperty('truncated');

    // One decided: the rest fit, and nothing says it is cut.
    expect((await api(`/approvals/${listing.approvals[0]!.id}/deny`, {})).status).toBe(200);
    const after = (await (await api('/approvals')).json()) as Listing;
    expect(after.approvals).toHaveLength(2);
    expect(after.total).toBe(2);
    expect(after).not.toHaveProperty('truncated');
    const plain = await runCli(['approvals', 'list', '--gateway', served.apiUrl], { env });
    expect(plain.stdout).not.toContain('showing');

    for (const { id } of after.approvals) expect((await api(`/approvals/${id}/deny`, {})).status).toBe(200);
    const results = await Promise.all(calls);
    expect(results.every((result) => result.isError === true)).toBe(true);
    expect(held).toHaveLength(3);
  });
});
