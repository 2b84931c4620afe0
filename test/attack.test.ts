// A short, seeded slice of the attack suite (npm run attack runs it all: scripts/attack/): a few hundred
// fast-check frames on stdio and HTTP and a handful of attacks, against the built server (`toolwire serve`
// of scripts/attack/fixtures/target-server.mjs). Each attack must leave the server alive and every answer
// right, with its memory back. The bystander's latency bound is npm run attack's to judge (it needs a quiet
// machine): here it is 10 s, so only a hang shows.
import { beforeAll, describe, expect, it } from 'vitest';
import { runJsonScript } from './_script.js';

const ATTACKS = [
  'fuzz/stdio-frames',
  'fuzz/http-frames',
  'fuzz/http-headers',
  'bodies/oversized',
  'batches/revisions',
  'regex/patterns',
  'output/redactor-bait',
  'output/bad-images',
  'collisions/stateless',
  'tokens/jwt',
];

interface AttackResult {
  name: string;
  ok: boolean;
  tries: number;
  failures: string[];
}

describe('the attack suite, quick and seeded', () => {
  let results: AttackResult[] = [];

  beforeAll(async () => {
    const run = await runJsonScript<{ results: AttackResult[] }>(
      'scripts/attack/run.mjs',
      ['--quick', '--seed', '20261128', '--latency-bound', '10000', '--only', ATTACKS.join(',')],
      110_000,
    );
    results = run.report.results;
  }, 120_000);

  it.each(ATTACKS)('%s: the server survives and answers right', (name) => {
    const result = results.find((r) => r.name === name);
    expect(result?.tries).toBeGreaterThan(0);
    expect(result?.failures).toEqual([]);
  });
});
