// An upstream that reports progress for ever: the gateway renews its call's timeout on each progress
// notification, so such an upstream held the call (and its caller) for ever; `maxCallMs` bounds it.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../src/gateway/index.js';
import { BIN } from './_gateway.js';
import { linkServer } from './_setup.js';

const ENDLESS = fileURLToPath(new URL('./fixtures/endless-progress-server.mjs', import.meta.url));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((close) => close()));
});

describe('a gateway in front of an upstream reporting progress for ever', () => {
  it('ends the call at maxCallMs, however much progress renews its timeout', async () => {
    const gateway = createGateway(
      {
        upstreams: {
          endless: {
            command: process.execPath,
            args: [BIN, 'serve', ENDLESS],
            stderr: 'ignore',
            // Far longer than the 20 ms between progress notifications, for the first one too: with 300 ms, a
            // busy machine's upstream sent none in time, the call timed out before any came, and `progress` was 0.
            timeoutMs: 1000,
            maxCallMs: 3000,
          },
        },
        policy: { default: 'allow' },
      },
      { onLog: () => undefined },
    );
    cleanup.push(() => gateway.close());
    await gateway.start();
    const linked = await linkServer(gateway.server, {});
    cleanup.push(() => linked.close());
    let progress = 0;
    const started = performance.now();
    // The caller's own timeout (10 s, not renewed) is what ended it before maxCallMs.
    const outcome = await linked.client
      .callTool('endless__spin', {}, { timeout: 10_000, onProgress: () => (progress += 1) })
      .then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
    const elapsed = performance.now() - started;
    expect(progress).toBeGreaterThan(0); // progress came through, each renewing the 1 s timeout
    expect(elapsed).toBeLessThan(10_000);
    // The gateway's answer, an isError result, not the caller's own timeout: at maxCallMs the timer armed for
    // what is left fires ("timed out"), or a progress notification that comes after it says so.
    expect(outcome).toMatchObject({ result: { isError: true } });
    expect(JSON.stringify(outcome)).toMatch(
      /Upstream endless failed to run spin: Request tools\/call (timed out|exceeded its maximum total timeout of 3000 ms)/,
    );
  });
});
