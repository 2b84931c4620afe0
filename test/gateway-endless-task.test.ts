// A plain call of a tool that requires a task upstream (2025-11-25), whose task never ends: `toolwire gateway`
// (its own process) runs the call as a task upstream and follows it, and answers the caller within the
// upstream's `maxCallMs`, as any plain call, cancelling the upstream task. Before, the follow had no end:
// the gateway polled `tasks/get` every 50 ms (the upstream asked for 0) for as long as the caller waited,
// and the caller never got an answer, whatever `timeoutMs` and `maxCallMs` said.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { startGateway, writeConfig } from './_gateway.js';

const ENDLESS = fileURLToPath(new URL('./fixtures/endless-task-server.mjs', import.meta.url));

describe('an upstream task that never ends', () => {
  it("ends a caller's plain call at the upstream's maxCallMs with an isError result, and cancels the task", async () => {
    const config = writeConfig({
      upstreams: {
        jobs: {
          command: process.execPath,
          args: [ENDLESS],
          stderr: 'ignore',
          timeoutMs: 500,
          maxCallMs: 1_500,
        },
      },
      policy: { default: 'allow' },
    });
    const gateway = await startGateway(['--config', config]);
    const client = new Client({ name: 'endless-task-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHttpClientTransport({ url: gateway.url }));
      // Ten times the maximum: before, this call was still waiting when the test's own timeout cut it.
      const result = await client.callTool('jobs__endless', {}, { timeout: 15_000 });
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([
        {
          type: 'text',
          text: 'Upstream jobs failed to run endless: Request tools/call exceeded its maximum total timeout of 1500 ms',
        },
      ]);
      const seen = await client.callTool('jobs__seen', {});
      const { gets, cancels } = JSON.parse((seen.content[0] as { text: string }).text) as Record<
        string,
        number
      >;
      expect(cancels).toBe(1);
      expect(gets).toBeGreaterThan(0);
      // The follow is over: no poll after the answer.
      const again = await client.callTool('jobs__seen', {});
      expect(JSON.parse((again.content[0] as { text: string }).text)).toEqual({ gets, cancels });
    } finally {
      await client.close().catch(() => undefined);
      await gateway.close();
    }
  }, 30_000);
});
