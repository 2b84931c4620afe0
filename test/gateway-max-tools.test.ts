// An upstream listing more tools than its `maxTools`, behind `toolwire gateway` (its own process) beside
// one listing exactly as many: the first is down saying why, its paging stopped at the page past the cap,
// and the second serves them all. Before, there was no cap but the client's 100,000 items: an upstream
// listing 60,000 small tools took the gateway from 72 to 265 MB (≈2.3 KB of heap a tool, most of it its
// downstream registration), and one listing 100,000 more than that.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { startGateway, writeConfig } from './_gateway.js';

const MANY_TOOLS = fileURLToPath(new URL('./fixtures/many-tools-server.mjs', import.meta.url));

function manyTools(count: number, page: number, maxTools?: number) {
  return {
    command: process.execPath,
    args: [MANY_TOOLS, String(count), String(page)],
    stderr: 'ignore',
    ...(maxTools === undefined ? {} : { maxTools }),
  };
}

interface UpstreamRow {
  name: string;
  status: string;
  error?: string;
}

describe('an upstream that lists more tools than its maxTools', () => {
  it('is down saying so, and an upstream at the cap serves every tool', async () => {
    const config = writeConfig({
      upstreams: {
        // 10 tools a page: the 11th page passes 100, and the 12th is never asked for.
        big: manyTools(120, 10, 100),
        small: manyTools(100, 10, 100),
        // The default cap (10,000) ends a 60,000-tool listing at its 11th page of 1,000.
        huge: manyTools(60_000, 1000),
      },
      policy: { default: 'allow' },
      reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const gateway = await startGateway(['--config', config]);
    const client = new Client({ name: 'max-tools-test', version: '1.0.0' });
    try {
      const { upstreams } = (await (await gateway.api('/upstreams')).json()) as { upstreams: UpstreamRow[] };
      expect(upstreams.find((u) => u.name === 'big')).toMatchObject({
        status: 'down',
        error:
          'it lists more than 100 tools (or items of another list); not exposed (raise its maxTools if this is expected)',
      });
      expect(upstreams.find((u) => u.name === 'huge')).toMatchObject({
        status: 'down',
        error:
          'it lists more than 10000 tools (or items of another list); not exposed (raise its maxTools if this is expected)',
      });
      expect(upstreams.find((u) => u.name === 'small')).toMatchObject({ status: 'ready' });

      await client.connect(new StreamableHttpClientTransport({ url: gateway.url }));
      const names = (await client.listTools()).map((tool) => tool.name);
      expect(names.filter((name) => name.startsWith('small__'))).toHaveLength(100);
      expect(names.filter((name) => !name.startsWith('small__'))).toEqual([]);
      // 10 pages of 10: the small upstream's listing was all of it, once.
      const answer = await client.callTool('small__tool-0', {});
      expect(answer.content).toEqual([{ type: 'text', text: '10 listings' }]);
      const refused = await client.callTool('big__tool-0', {}).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: -32602 });
    } finally {
      await client.close().catch(() => undefined);
      await gateway.close();
    }
  }, 60_000);
});
