// Upstream attacks on the gateway's listing of an upstream's tools: pages without end.
import { setTimeout as sleep } from 'node:timers/promises';
import { beside, gateway, HOSTILE } from '../lib/upstream-gateway.mjs';

export default [
  {
    name: 'endless-cursors',
    title: 'an upstream whose tools/list pages each carry a distinct 3 MB nextCursor, for ever',
    target: false,
    budgetMs: 60_000,
    // Each page is 3 MB to read and parse, in one turn: a caller beside it waits for that.
    latencyBoundMs: 600,
    async run(ctx) {
      ctx.tries++;
      const gw = await gateway({
        h: { command: process.execPath, args: [HOSTILE, '--cursors', '3000000'], stderr: 'ignore' },
      });
      try {
        // The listing at start ended at the byte cap (it ran to the 100-page cap, keeping 300 MB of cursors);
        // the reconnects after 0.5 and 1 s list again beside the bystander.
        ctx.check(
          /h: down \(tools\/list returned more than 33554432 bytes of items and cursors/.test(gw.stderr()),
          () => `the gateway did not stop the listing at maxListBytes: ${gw.stderr().slice(-400)}`,
        );
        await beside(ctx, gw, () => sleep(2_000));
        ctx.check(
          gw.peakRssMb() < 256,
          () => `the gateway's RSS peaked at ${gw.peakRssMb().toFixed(0)} MB (413 before the fix)`,
        );
        ctx.note(`the gateway's RSS peaked at ${gw.peakRssMb().toFixed(0)} MB`);
      } finally {
        await gw.close();
      }
    },
  },
];
