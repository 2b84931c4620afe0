// An upstream flooding `notifications/resources/updated` for one URI (100,000 in one write, then one for each
// of 50 other URIs: test/fixtures/updates-flood-server.mjs), behind `toolwire gateway --redis URL` (its own
// process, sessions shared on a real Redis), to a host subscribed over Streamable HTTP. The gateway tells
// the other instances of each update on the session bus (`toolwire:bus:all`), which the test reads itself:
// the flooded URI's updates are published coalesced (one publish under way per URI, and one more once it is
// done for what came meanwhile), and every other URI still once. Before, each of the 100,000 updates was one
// PUBLISH, though the hosts' own streams got them coalesced (≈300).
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, writeConfig, type RunningGateway } from './_gateway.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

const FLOOD = fileURLToPath(new URL('./fixtures/updates-flood-server.mjs', import.meta.url));
const UPDATES = 100_000;
const HOT = 'flood://hot';
const COLD = Array.from({ length: 50 }, (_, i) => `flood://cold/${i}`);
const CHANNEL = 'toolwire:bus:all';

let redis: RedisServerHandle;
let gateway: RunningGateway;
let listener: Redis;
/** The resource updates published on the bus, per URI. */
const published = new Map<string, number>();
let allCold: () => void = () => undefined;
const everyCold = new Promise<void>((resolve) => (allCold = resolve));

beforeAll(async () => {
  redis = await startRedis();
  listener = new Redis(redis.url);
  listener.on('message', (_channel: string, text: string) => {
    const message = JSON.parse(text) as { kind?: string; uri?: string };
    if (message.kind !== 'resourceUpdated' || typeof message.uri !== 'string') return;
    published.set(message.uri, (published.get(message.uri) ?? 0) + 1);
    if (COLD.every((uri) => published.has(uri))) allCold();
  });
  await listener.subscribe(CHANNEL);
  const config = writeConfig({
    upstreams: { fl: { command: process.execPath, args: [FLOOD], stderr: 'ignore' } },
    policy: { default: 'allow' },
  });
  gateway = await startGateway(['--config', config, '--redis', redis.url]);
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  listener?.disconnect();
  await redis?.close();
});

describe('a gateway on Redis in front of an upstream flooding resources/updated', () => {
  it('publishes the flooded URI’s updates coalesced, and every other URI once', async () => {
    const host = new ClientV1({ name: 'subscriber', version: '1.0.0' });
    await host.connect(new HttpV1(new URL(gateway.url)));
    try {
      for (const uri of [HOT, ...COLD]) await host.subscribeResource({ uri });
      const answer = await host.callTool({ name: 'fl__flood', arguments: { count: UPDATES } });
      expect(answer.content).toEqual([{ type: 'text', text: 'flooded' }]);
      // The cold URIs come after the flood on the upstream's stdout, and the gateway's publishes reach Redis
      // in order: once each is heard, so is every publish of the hot URI but the last coalesced one.
      await everyCold;
      for (const uri of COLD) expect(published.get(uri)).toBe(1);
      // Coalesced: one under way, one more for the updates that came meanwhile. Before: 100,000.
      expect(published.get(HOT)).toBeLessThan(UPDATES / 20);
    } finally {
      await host.close().catch(() => undefined);
    }
  }, 120_000);
});
