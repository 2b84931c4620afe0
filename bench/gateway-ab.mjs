// Interleaved A/B repetitions of the gateway rows (issue 17): builds of toolwire side by side (each a
// folder with bin/, dist/ and bench/, e.g. a copy of this one before a change), and optionally the
// hand-written relay (bench/raw-relay.mjs, --raw) and the relay of toolwire's public server and client with no
// gateway logic (bench/bare-relay.mjs, --bare: the design's floor, one per root), each in front of its own upstream fixture, in turn within every
// repetition, so that the host's load falls on all alike. Per variant: the gateway's and its upstream's
// CPU per call at 16 and at 1 in flight (medians of the repetitions) and their ratio; with --alloc, the
// bytes the gateway allocates per call (sampling heap profiler, bench/alloc-preload.mjs; a run of its own,
// as sampling costs CPU). With --direct, the first root's fixture is also called with nothing in between:
// the upstream's CPU per call with only the load generator beside it, against its CPU behind each relay.
//
//   node bench/gateway-ab.mjs --roots=/tmp/before,. [--raw] [--bare] [--direct] [--alloc] [--reps=6] [--calls=20000] [--warm=40000]
//   taskset -c 0 node bench/gateway-ab.mjs …   # every process on one core: on a small VM a far steadier
//                                              # ratio (no wakeups across cores), what to compare builds by
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureArgs, gatewayArgs } from './gateway.mjs';
import { StdioPeer, stdioCalls } from './load.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const reps = Number(arg('reps', 6));
const calls = Number(arg('calls', 20_000));
/**
 * Calls at 16 in flight before the measured ones, as many as a normal run's gateway rows make (bench-config's
 * `warm`). V8 keeps tiering up the fixture's code longer than the gateway's: after 3,000 calls the upstream
 * cost ≈16 µs per call and the ratio read ≈1.5×, after 40,000 ≈12 µs and ≈1.63×.
 */
const warm = Number(arg('warm', 40_000));
// A root may carry node flags for the gateway process after a `#`: `/tmp/before#--max-semi-space-size=16`.
const variants = arg('roots', '.')
  .split(',')
  .map((spec) => {
    const [root, ...flags] = spec.split('#');
    return { name: spec, root: resolve(root), flags };
  });
if (process.argv.includes('--bare')) {
  for (const { name, root } of [...variants])
    variants.push({ name: `${name}: bare relay (public server + client)`, root, bare: true });
}
if (process.argv.includes('--raw')) variants.push({ name: 'raw relay', root: dirname(here), raw: true });
if (process.argv.includes('--direct'))
  variants.push({ name: 'fixture called directly (no relay)', root: variants[0].root, direct: true });
const alloc = process.argv.includes('--alloc');

function command(variant, preload) {
  const pre = [...(variant.flags ?? []), ...(preload ? ['--import', join(here, 'alloc-preload.mjs')] : [])];
  if (variant.direct) return [...pre, ...fixtureArgs(variant.root)];
  if (variant.raw)
    return [...pre, join(here, 'raw-relay.mjs'), '--', process.execPath, ...fixtureArgs(variant.root)];
  if (variant.bare) {
    const relay = join(here, 'bare-relay.mjs');
    return [...pre, relay, variant.root, '--', process.execPath, ...fixtureArgs(variant.root)];
  }
  return [...pre, ...gatewayArgs(variant.root)];
}

const childOf = (pid) => Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim());
const until = async (test) => {
  for (let i = 0; i < 500 && !test(); i++) await new Promise((r) => setTimeout(r, 20));
};

async function cpuRun(variant) {
  const peer = new StdioPeer(process.execPath, command(variant, false));
  try {
    await peer.initialize();
    const prefix = variant.direct ? '' : 'fx__';
    await stdioCalls(peer, { total: warm, inFlight: 16, prefix });
    const pids = variant.direct ? [peer.pid, peer.pid] : [peer.pid, childOf(peer.pid)];
    const out = {};
    for (const inFlight of [16, 1]) {
      const run = await stdioCalls(peer, {
        total: inFlight === 1 ? calls / 5 : calls,
        inFlight,
        prefix,
        pids,
        maxMs: 120_000,
      });
      if (run.errors) throw new Error(`${run.errors} calls failed through ${variant.name}`);
      out[inFlight] = { gateway: run.cpuUsPerCallOf[0], upstream: run.cpuUsPerCallOf[1] };
    }
    return out;
  } finally {
    await peer.close();
  }
}

async function allocRun(variant) {
  const dir = mkdtempSync(join(tmpdir(), 'gw-alloc-'));
  const file = join(dir, 'bytes');
  const peer = new StdioPeer(process.execPath, command(variant, true), { ALLOC_OUT: file });
  try {
    await peer.initialize();
    await stdioCalls(peer, { total: 3000, inFlight: 16, prefix: 'fx__' });
    process.kill(peer.pid, 'SIGUSR2');
    const n = 5000;
    await stdioCalls(peer, { total: n, inFlight: 16, prefix: 'fx__' });
    process.kill(peer.pid, 'SIGUSR2');
    await until(() => existsSync(file) && readFileSync(file, 'utf8').length > 0);
    return Number(readFileSync(file, 'utf8')) / n;
  } finally {
    await peer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = new Map(
  variants.map((v) => [v.name, { 16: { g: [], u: [] }, 1: { g: [], u: [] }, alloc: [] }]),
);
const loads = [];
for (let rep = 0; rep < reps; rep++) {
  const order = rep % 2 ? [...variants].reverse() : variants;
  for (const variant of order) {
    loads.push(loadavg()[0]);
    const r = await cpuRun(variant);
    const into = results.get(variant.name);
    for (const k of [16, 1]) {
      into[k].g.push(r[k].gateway);
      into[k].u.push(r[k].upstream);
    }
    if (alloc && !variant.direct) into.alloc.push(await allocRun(variant));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `${reps} interleaved reps, ${calls} calls at 16 in flight, ${calls / 5} at 1; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
);
for (const [name, r] of results) {
  const row = [16, 1].map((k) => {
    const g = median(r[k].g);
    const u = median(r[k].u);
    if (name === 'fixture called directly (no relay)') return `${k} in flight: ${u.toFixed(1)} µs`;
    const ratios = r[k].g.map((x, i) => x / r[k].u[i]);
    return `${k} in flight: ${g.toFixed(1)} µs (upstream ${u.toFixed(1)}), ratio ${(g / u).toFixed(2)}× (median of per-rep ratios ${median(ratios).toFixed(2)}×)`;
  });
  const kb = r.alloc.length > 0 ? `; ${(median(r.alloc) / 1024).toFixed(1)} KB allocated/call` : '';
  console.log(`${name}\n  ${row.join('\n  ')}${kb}`);
}
