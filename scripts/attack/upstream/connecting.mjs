// Upstream attacks on how the gateway connects to an upstream: one that never answers (its silence cut at
// 30 s), and one that exits after each start (its restarts spaced by delays that double).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beside, gateway, HOSTILE } from '../lib/upstream-gateway.mjs';

export default [
  {
    name: 'mute',
    title:
      'an upstream that answers nothing, not even initialize: the gateway serves within 30 s of trying it',
    target: false,
    budgetMs: 90_000,
    async run(ctx) {
      ctx.tries++;
      const started = performance.now();
      const gw = await gateway({
        h: { command: process.execPath, args: [HOSTILE, '--mute'], stderr: 'ignore' },
      });
      const waited = performance.now() - started;
      try {
        // 30 s for the attempt, and the gateway's start; before, 61 s (the era probe, then initialize).
        ctx.check(
          waited < 45_000,
          () => `the gateway answered initialize after ${(waited / 1000).toFixed(1)} s`,
        );
        ctx.check(
          /h: down \(connecting took longer than 30 s\)/.test(gw.stderr()),
          () => `the gateway did not say why: ${gw.stderr().slice(-300)}`,
        );
        ctx.note(`the gateway answered initialize after ${(waited / 1000).toFixed(1)} s`);
        await beside(ctx, gw, () => sleep(500));
      } finally {
        await gw.close();
      }
    },
  },
  {
    name: 'crash-loop',
    title: 'an upstream that exits 300 ms after each start: restarted after delays that double',
    target: false,
    budgetMs: 60_000,
    async run(ctx) {
      const dir = mkdtempSync(path.join(tmpdir(), 'toolwire-attack-crash-loop-'));
      const starts = path.join(dir, 'starts');
      writeFileSync(starts, '');
      const gw = await gateway(
        {
          h: {
            command: process.execPath,
            args: [HOSTILE, '--exit-after', '300', '--starts', starts],
            stderr: 'ignore',
          },
        },
        { reconnect: { initialDelayMs: 100, maxDelayMs: 3_200 } },
      );
      const marks = () =>
        readFileSync(starts, 'utf8')
          .trim()
          .split('\n')
          .map((line) => line.split(' '))
          .map(([what, at]) => ({ what, at: Number(at) }));
      try {
        const START_COUNT = 6;
        await beside(ctx, gw, async () => {
          while (marks().filter((m) => m.what === 'start').length < START_COUNT) await sleep(50);
        });
        // From each exit to the next start: at least the k-th delay (100 ms · 2^k); before, every one was
        // the first delay (the backoff started over at each ready), ≈0.8 s a cycle with the defaults.
        const seen = marks();
        const gaps = [];
        for (const [i, mark] of seen.entries()) {
          const next = seen[i + 1];
          if (mark.what === 'exit' && next?.what === 'start') gaps.push(next.at - mark.at);
        }
        ctx.tries += gaps.length;
        for (const [k, gap] of gaps.entries()) {
          const delay = Math.min(100 * 2 ** k, 3_200);
          ctx.check(
            gap >= delay * 0.95,
            () => `restart ${k + 1} came ${gap} ms after the exit, before its ${delay} ms delay`,
          );
        }
        ctx.note(`exit to the next start: ${gaps.join(', ')} ms`);
      } finally {
        await gw.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
