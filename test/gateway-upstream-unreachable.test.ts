// An HTTP upstream that cannot be reached, behind `toolwire gateway` (its own process): its status says why
// (`connect ECONNREFUSED …`), on stderr and in the decision API (the console's Upstreams view), as
// `toolwire tools URL` does. Before, the fallback transport's failure reached the gateway only as the
// connection closing: "down (The connection closed)", whatever the cause (refused, no such host, TLS).
import { describe, expect, it } from 'vitest';
import { closedPort } from './_closed-port.js';
import { startGateway, waitForLine } from './_gateway.js';

describe('an HTTP upstream that cannot be reached', () => {
  it('is down naming the transport failure, on stderr and in GET /api/upstreams', async () => {
    const port = await closedPort();
    const gateway = await startGateway(['--upstream', `gone=http://127.0.0.1:${port}/mcp`]);
    try {
      const [line] = await waitForLine(
        () => gateway.stderr(),
        /^toolwire gateway: 1 upstream \(.*\)$/m,
        gateway.child,
      );
      expect(line).toContain(`gone: down (The connection closed: POST http://127.0.0.1:${port}/mcp failed`);
      expect(line).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
      const { upstreams } = (await (await gateway.api('/upstreams')).json()) as {
        upstreams: { name: string; status: string; error?: string }[];
      };
      expect(upstreams).toHaveLength(1);
      expect(upstreams[0]).toMatchObject({ name: 'gone', status: 'down' });
      expect(upstreams[0]?.error).toMatch(/^The connection closed: POST .* failed: .*ECONNREFUSED/);
    } finally {
      await gateway.close();
    }
  }, 60_000);
});
