// A short soak (npm run soak runs 100,000 calls per mode): 5,000 tools/call per mode — stdio, HTTP with JSON
// and with SSE answers, stateless HTTP, 2026-07-28 requests — against the built server, the heap after a
// full GC read every 1,000. The bound is npm run soak's 20 MB per 100,000 calls, scaled: 1 MB. RSS, which over
// so short a run mostly shows the heap reaching its working size, only has to stay under +48 MB.
import { beforeAll, describe, expect, it } from 'vitest';
import { runJsonScript } from './_script.js';

const MODES = ['stdio', 'http-json', 'http-sse', 'stateless', '2026-07-28'];

interface SoakResult {
  mode: string;
  calls: number;
  errors: number;
  heapGrowthMb: number;
  rssGrowthMb: number;
}

describe('a 5,000-call soak per mode', () => {
  let results: SoakResult[] = [];

  beforeAll(async () => {
    const run = await runJsonScript<{ results: SoakResult[] }>(
      'bench/soak.mjs',
      ['--calls', '5000', '--every', '1000', '--bound-mb', '1', '--rss-bound-mb', '48'],
      110_000,
    );
    results = run.report.results;
  }, 120_000);

  it.each(MODES)('%s: every call answered, heap after GC flat', (mode) => {
    const result = results.find((r) => r.mode === mode);
    expect(result).toMatchObject({ calls: 5000, errors: 0 });
    expect(result?.heapGrowthMb).toBeLessThanOrEqual(1);
    expect(result?.rssGrowthMb).toBeLessThanOrEqual(48);
  });
});
