// An upstream flooding `notifications/resources/updated` for one URI, behind `toolwire gateway` (its own
// process), to two SDK 1.x hosts subscribed over Streamable HTTP: each gets the flooded URI's updates
// coalesced (one being sent and one waiting at most, per URI and host), and every one of 50 distinct URIs
// updated after the flood. Before, each of the 100,000 updates was relayed to every subscribed host.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startGateway, writeConfig } from './_gateway.js';

const FLOOD = fileURLToPath(new URL('./fixtures/updates-flood-server.mjs', import.meta.url));
const UPDATES = 100_000;
const COLD = Array.from({ length: 50 }, (_, i) => `flood://cold/${i}`);

/** An SDK 1.x host subscribed to every URI, counting the updates it gets; `all()` waits for every cold one. */
async function subscriber(url: string) {
  const client = new ClientV1({ name: 'subscriber', version: '1.0.0' });
  await client.connect(new HttpV1(new URL(url)));
  const counts = new Map<string, number>();
  let done: () => void = () => undefined;
  const all = new Promise<void>((resolve) => (done = resolve));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    const { uri } = notification.params;
    counts.set(uri, (counts.get(uri) ?? 0) + 1);
    if (COLD.every((cold) => counts.has(cold)) && counts.has('flood://hot')) done();
  });
  for (const uri of ['flood://hot', ...COLD]) await client.subscribeResource({ uri });
  return { client, counts, all };
}

describe('an upstream flooding resources/updated for one URI', () => {
  it('reaches each subscribed host coalesced, and every distinct URI still arrives', async () => {
    const config = writeConfig({
      upstreams: { fl: { command: process.execPath, args: [FLOOD], stderr: 'ignore' } },
      policy: { default: 'allow' },
    });
    const gateway = await startGateway(['--config', config]);
    const hosts = [await subscriber(gateway.url), await subscriber(gateway.url)];
    try {
      const answer = await hosts[0]!.client.callTool({ name: 'fl__flood', arguments: { count: UPDATES } });
      expect(answer.content).toEqual([{ type: 'text', text: 'flooded' }]);
      await Promise.all(hosts.map((host) => host.all));
      for (const host of hosts) {
        for (const uri of COLD) expect(host.counts.get(uri)).toBe(1);
        // Coalesced: the upstream's messages reach the gateway a pipe's read at a time (thousands each),
        // and each read's updates of one URI are one being sent and one waiting. Before: 100,000.
        expect(host.counts.get('flood://hot')).toBeLessThan(UPDATES / 20);
      }
    } finally {
      for (const host of hosts) await host.client.close().catch(() => undefined);
      await gateway.close();
    }
  }, 120_000);
});
