#!/usr/bin/env node
// `npm run attack`: the attack suite, against the built package (dist/ is built first when stale). Each
// attack runs against a fresh server process (scripts/attack/fixtures/target-server.mjs under `toolwire
// serve`, on loopback), while a bystander — another caller of the same process, in its own session — calls
// ping and echo and times each answer. An attack passes when the server never crashed or hung, every
// request got the right answer or error, the server's heap after GC came back within the attack's budget,
// and no bystander request waited more than `--latency-bound` ms (100) longer than its baseline median.
// An attack over that bound (and wrong in nothing else) is run up to twice more, and fails only when every
// run is over it (a defect shows every time; a busy machine's scheduling hiccups rarely three times running).
//
//   npm run attack                        # every attack (a few minutes on two cores)
//   npm run attack -- --only regex,fuzz   # families (or full names: --only bodies/chunked-flood)
//   npm run attack -- --quick --seed 7    # smaller counts, another seed
//   npm run attack -- --json              # one JSON report on stdout instead of the table
//   npm run attack -- --list              # the attacks' names
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ensureBuilt } from '../ensure-built.mjs';
import { runAttack } from './lib/run-attack.mjs';

const FAMILIES = [
  'fuzz',
  'bodies',
  'slow',
  'sessions',
  'batches',
  'regex',
  'output',
  'client',
  'collisions',
  'tokens',
  'gateway',
  'upstream',
  'approvals',
  'oauth',
];

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    seed: { type: 'string', default: '20261128' },
    json: { type: 'boolean', default: false },
    list: { type: 'boolean', default: false },
    'latency-bound': { type: 'string', default: '100' },
  },
});
const options = {
  quick: flags.quick,
  seed: Number(flags.seed),
  latencyBoundMs: Number(flags['latency-bound']),
};
const say = flags.json
  ? (line) => process.stderr.write(`${line}\n`)
  : (line) => process.stdout.write(`${line}\n`);

const attacks = [];
for (const family of FAMILIES) {
  const { default: cases } = await import(`./${family}.mjs`);
  for (const attack of cases) attacks.push({ ...attack, name: `${family}/${attack.name}`, family });
}
if (flags.list) {
  for (const attack of attacks) console.log(`${attack.name.padEnd(32)} ${attack.title}`);
  process.exit(0);
}
const wanted = flags.only?.split(',').map((w) => w.trim());
const chosen = wanted
  ? attacks.filter((a) => wanted.some((w) => a.family === w || a.name === w || a.name.startsWith(`${w}/`)))
  : attacks;
if (chosen.length === 0) {
  console.error(`no attack matches --only ${flags.only}; try --list`);
  process.exit(2);
}

await ensureBuilt(say);
const started = Date.now();
say(
  `toolwire attack suite: ${chosen.length} attacks, seed ${options.seed}${options.quick ? ', quick' : ''}, ` +
    `bystander bound +${options.latencyBoundMs} ms`,
);
say(
  `${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, Node ${process.version}`,
);
const results = [];
for (const attack of chosen) {
  const result = await runAttack(attack, options);
  results.push(result);
  say(`  ${result.ok ? 'pass' : 'FAIL'} ${attack.name} (${(result.ms / 1000).toFixed(1)} s)`);
}

const failed = results.filter((r) => !r.ok);
const signed = (value, digits) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
if (flags.json) {
  process.stdout.write(`${JSON.stringify({ seed: options.seed, quick: options.quick, results }, null, 2)}\n`);
} else {
  const rows = results.map((r) => [
    r.name,
    String(r.tries),
    r.ok ? 'pass' : `FAIL: ${r.failures[0]?.slice(0, 70) ?? ''}`,
    Number.isFinite(r.delayMs)
      ? `${signed(r.delayMs, 0)} ms${r.rerun ? ` (runs: ${r.delays.map((d) => signed(d, 0)).join(', ')})` : ''}`
      : 'n/a',
    Number.isFinite(r.stallCpuMs) ? `${r.stallCpuMs.toFixed(0)} / ${r.stallWallMs.toFixed(0)} ms` : 'n/a',
    Number.isFinite(r.peakRssMb) ? `${r.peakRssMb.toFixed(0)} MB` : 'n/a',
    Number.isFinite(r.heapGrowthMb)
      ? `${r.heapGrowthMb >= 0 ? '+' : ''}${r.heapGrowthMb.toFixed(1)} MB`
      : 'n/a',
  ]);
  const header = [
    'attack',
    'tries',
    'result',
    'worst bystander delay',
    'server stall CPU / wall',
    'peak RSS',
    'heap after GC',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) =>
    `| ${cells.map((c, i) => (i === 1 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  say('');
  say(line(header));
  say(`|${widths.map((w, i) => (i === 1 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`);
  for (const row of rows) say(line(row));
  for (const r of results.filter((r) => !r.ok || r.notes.length > 0)) {
    say(`\n${r.name}: ${r.title}`);
    for (const failure of r.failures) say(`  - ${failure}`);
    for (const note of r.notes) say(`  · ${note}`);
  }
}
say(
  `\n${results.length - failed.length}/${results.length} attacks passed in ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
process.exit(failed.length === 0 ? 0 : 1);
