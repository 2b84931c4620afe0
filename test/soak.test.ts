// A short soak (npm run soak runs 100,000 calls per mode): 5,000 tools/call per mode — stdio, HTTP with JSON
// and with SSE answers, stateless HTTP, 2026-07-28 requests, through the gateway — against the built server
// (the gateway's own memory for the last), the heap after a
// full GC read every 1,000. The bound is npm run soak's 20 MB per 100,000 calls, scaled: 1 MB. RSS, which over
// so short a run mostly shows the heap reaching its working size, only has to stay under +48 MB. Then 3,000
// tasks in each of their two forms, under the same bound (each reading waits for the tasks to expire: ≈3 s).
import { beforeAll, describe, expect, it } from 'vitest';
import { runJsonScript } from './_script.js';

const MODES = ['stdio', 'http-json', 'http-sse', 'stateless', '2026-07-28', 'gateway'];
const TASK_MODES = ['tasks', 'tasks-2026'];

interface SoakResult {
  mode: string;
  calls: number;
  errors: number;
  heapGrowthMb: number;
  rssGrowthMb: number;
}

/** A describe block: one soak of `modes`, `calls` each; every call answered and the heap after GC flat. */
function soakSuite(title: string, modes: string[], calls: number, what: string): void {
  describe(title, () => {
    let results: SoakResult[] = [];

    beforeAll(async () => {
      const args = ['--calls', String(calls), '--every', '1000', '--only', modes.join(',')];
      const bounds = ['--bound-mb', '1', '--rss-bound-mb', '48'];
      const run = await runJsonScript<{ results: SoakResult[] }>(
        'bench/soak.mjs',
        [...args, ...bounds],
        110_000,
      );
      results = run.report.results;
    }, 120_000);

    it.each(modes)(`%s: every ${what}, heap after GC flat`, (mode) => {
      const result = results.find((r) => r.mode === mode);
      expect(result).toMatchObject({ calls, errors: 0 });
      expect(result?.heapGrowthMb).toBeLessThanOrEqual(1);
      expect(result?.rssGrowthMb).toBeLessThanOrEqual(48);
    });
  });
}

soakSuite('a 5,000-call soak per mode', MODES, 5000, 'call answered');

// Before mergedSignal, each task left ≈5 KB in the server for good (AbortSignal.any on Node 20): ≈10 MB
// from the first reading to the last here.
soakSuite('a 3,000-task soak in each form of tasks', TASK_MODES, 3000, 'task done');
