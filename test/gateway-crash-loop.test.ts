// An upstream in a crash loop: `toolwire gateway` (its own process) in front of a stdio upstream that exits
// each time it is asked to (the crashy fixture's `crash`), asked as soon as it is back. The gateway starts
// it again with a backoff that keeps doubling while it never stays up: before, each start that got as far
// as `ready` set the backoff back to its first delay, so a server exiting soon after each start was
// spawned, listed and announced (list_changed to every caller) every first delay, for ever.
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { CRASHY_FIXTURE, startGateway, toolwireUpstream, writeConfig } from './_gateway.js';

const FIRST_DELAY_MS = 50;
const CRASHES = 6;

describe('an upstream that exits soon after each start', () => {
  it('is started again after a delay that doubles each time, up to the last', async () => {
    const config = writeConfig({
      upstreams: { crashy: toolwireUpstream(CRASHY_FIXTURE) },
      policy: { default: 'allow' },
      // The last delay is the 6th: the loop below sees every doubling.
      reconnect: { initialDelayMs: FIRST_DELAY_MS, maxDelayMs: FIRST_DELAY_MS * 2 ** (CRASHES - 1) },
    });
    const gateway = await startGateway(['--config', config]);
    const client = new Client({ name: 'crash-loop-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHttpClientTransport({ url: gateway.url }));
      const events = await gateway.events();
      const waits: number[] = [];
      for (let crash = 0; crash < CRASHES; crash++) {
        // Crashed as soon as it is up: it never stays up as long as the last delay.
        const answer = await client.callTool('crashy__crash', {});
        expect(answer.content).toEqual([{ type: 'text', text: 'crashing' }]);
        const crashed = performance.now();
        await events.next('upstream.status', (e) => e.upstream === 'crashy' && e.status === 'down');
        await events.next('upstream.status', (e) => e.upstream === 'crashy' && e.status === 'ready');
        waits.push(performance.now() - crashed);
      }
      // Each wait holds its delay (and a process start): a lower bound only, never a race with the clock.
      // Before, every wait was the first delay and a start (≈150 ms here), the 6th included.
      const delays = waits.map((_, k) => FIRST_DELAY_MS * 2 ** k);
      for (const [k, wait] of waits.entries()) expect(wait).toBeGreaterThanOrEqual(delays[k]! * 0.95);
    } finally {
      await client.close().catch(() => undefined);
      await gateway.close();
    }
  }, 30_000);
});
