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

function soak(modes: string[], calls: number): () => Promise<SoakResult[]> {
  return async () => {
    const run = await runJsonScript<{ results: SoakResult[] }>(
      'bench/soak.mjs',
      [
        '--calls',
        String(calls),
        '--every',
        '1000',
        '--bound-mb',
        '1',
        '--rss-bound-mb',
        '48',
        '--only',
        modes.join(','),
      ],
      110_000,
    );
    return run.report.results;
  };
}

describe('a 5,000-call soak per mode', () => {
  let results: SoakResult[] = [];

  beforeAll(async () => {
    results = await soak(MODES, 5000)();
  }, 120_000);

  it.each(MODES)('%s: every call answered, heap after GC flat', (mode) => {
    const result = results.find((r) => r.mode === mode);
    expect(result).toMatchObject({ calls: 5000, errors: 0 });
    expect(result?.heapGrowthMb).toBeLessThanOrEqual(1);
    expect(result?.rssGrowthMb).toBeLessThanOrEqual(48);
  });
});

// Before mergedSignal, each task left ≈5 KB in the server for good (AbortSignal.any on Node 20): ≈10 MB
// from the first reading to the last here.
describe('a 3,000-task soak in each form of tasks', () => {
  let results: SoakResult[] = [];

  beforeAll(async () => {
    results = await soak(TASK_MODES, 3000)();
  }, 120_000);

  it.each(TASK_MODES)('%s: every task done, heap after GC flat', (mode) => {
    const result = results.find((r) => r.mode === mode);
    expect(result).toMatchObject({ calls: 3000, errors: 0 });
    expect(result?.heapGrowthMb).toBeLessThanOrEqual(1);
    expect(result?.rssGrowthMb).toBeLessThanOrEqual(48);
  });
});
