// Instructions per call of the gateway and of its upstream (issue 17), counted by valgrind's callgrind:
// the gateway's ratio without the host's noise. `toolwire gateway --stdio --default allow --upstream fx --
// node bin/toolwire.mjs serve bench/fixture-server.mjs`, both processes under callgrind (the upstream's
// valgrind is the command the gateway spawns), instrumentation switched on in both after the warm-up and
// off after each measured run, one dump per run and process. The raw generator (bench/load.mjs), echo and
// add alternately, at 16 then 1 in flight. `--bare`: the relay of the public server and client
// (bench/bare-relay.mjs) measured the same way, per root; `--raw`: the hand-written relay
// (bench/raw-relay.mjs). User-space instructions only: the kernel's work for a system call is not counted
// (the gateway makes two reads and two writes per call where its upstream makes one of each), nor the
// time a cold cache or a wake-up on another core costs, so this ratio is lower than the CPU-time ratio
// (see bench/README.md, "Instructions per call (callgrind)").
//
//   node bench/gateway-instructions.mjs [--roots=/tmp/before,.] [--bare] [--raw] [--calls=20000] [--warm=20000]
//     [--in-flight=16,1] [--keep=DIR] [--nice=-5]
//
// `--keep=DIR`: the callgrind outputs and V8's perf maps (`--perf-basic-prof`, and
// `--interpreted-frames-native-stack` so that interpreted functions have addresses of their own) are kept
// in DIR, for bench/callgrind-js.mjs to name the JIT code's functions. A run of 20,000 calls at 16 in
// flight and 4,000 at 1 takes ≈5 minutes per variant (valgrind runs each process ≈50× slower).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { StdioPeer, stdioCalls } from './load.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const roots = arg('roots', '.')
  .split(',')
  .map((root) => resolve(root));
const calls = Number(arg('calls', '20000'));
const warm = Number(arg('warm', '20000'));
const inFlights = arg('in-flight', '16,1').split(',').map(Number);
const keep = arg('keep', undefined);
const nice = arg('nice', '-5');
if (keep) mkdirSync(keep, { recursive: true });
const valgrindPath = execFileSync('which', ['valgrind'], { encoding: 'utf8' }).trim();

const variants = roots.map((root) => ({ name: `${root}: gateway`, root, kind: 'gateway' }));
if (process.argv.includes('--bare'))
  for (const root of roots) variants.push({ name: `${root}: bare relay`, root, kind: 'bare' });
if (process.argv.includes('--raw')) variants.push({ name: 'raw relay', root: dirname(here), kind: 'raw' });

/** valgrind's arguments for a process writing its counts to `out`. */
function callgrind(out) {
  return [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${out}`,
  ];
}
const nodeFlags = keep ? ['--perf-basic-prof', '--interpreted-frames-native-stack'] : [];

/** The relay's command line (under valgrind), with its upstream's (under valgrind too). */
function command(variant, relayOut, upstreamOut) {
  const { root, kind } = variant;
  const upstream = [
    valgrindPath,
    ...callgrind(upstreamOut),
    process.execPath,
    ...nodeFlags,
    join(root, 'bin/toolwire.mjs'),
    'serve',
    join(root, 'bench/fixture-server.mjs'),
  ];
  const relay =
    kind === 'gateway'
      ? [join(root, 'bin/toolwire.mjs'), 'gateway', '--stdio', '--default', 'allow', '--api-port', '0']
      : kind === 'bare'
        ? [join(here, 'bare-relay.mjs'), root]
        : [join(here, 'raw-relay.mjs')];
  const upstreamFlag = kind === 'gateway' ? ['--upstream', 'fx'] : [];
  return [
    ...callgrind(relayOut),
    process.execPath,
    ...nodeFlags,
    ...relay,
    ...upstreamFlag,
    '--',
    ...upstream,
  ];
}

const childOf = (pid) => Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim());
const control = (pid, ...args) =>
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });

/** The instructions in callgrind's dump number `n` of `out` (`out.n`), once written. */
async function counted(out, n) {
  for (let i = 0; i < 600; i++) {
    try {
      const totals = /^totals: (\d+)/m.exec(readFileSync(`${out}.${n}`, 'utf8'));
      if (totals) return Number(totals[1]);
    } catch {
      // not written yet
    }
    await sleep(200);
  }
  throw new Error(`no counts in ${out}.${n}`);
}

async function run(variant, index) {
  const base = `/tmp/toolwire-gwi-${process.pid}-${index}`;
  const outs = [`${base}-relay.out`, `${base}-upstream.out`];
  // A little ahead of the host's other work (the upstream inherits it): on a busy 2-core host, an upstream
  // starting under valgrind could miss the gateway's 30 s connect timeout, again and again.
  const peer = new StdioPeer('nice', ['-n', nice, valgrindPath, ...command(variant, ...outs)]);
  const perCall = {};
  try {
    await peer.initialize();
    const prefix = 'fx__';
    // The gateway connects its upstream in the background: calls fail until it is up.
    for (let i = 0; ; i++) {
      const probe = await stdioCalls(peer, { total: 1, inFlight: 1, prefix, maxMs: 600_000 });
      if (probe.errors === 0) break;
      if (i === 600) throw new Error(`the upstream of ${variant.name} did not come up`);
      await sleep(500);
    }
    const warmRun = await stdioCalls(peer, { total: warm, inFlight: 16, prefix, maxMs: 3_600_000 });
    if (warmRun.errors) throw new Error(`${warmRun.errors} warm-up calls failed through ${variant.name}`);
    const pids = [peer.pid, childOf(peer.pid)];
    let dump = 0;
    for (const inFlight of inFlights) {
      const total = inFlight === 1 ? calls / 5 : calls;
      for (const pid of pids) control(pid, '-i', 'on');
      const measured = await stdioCalls(peer, { total, inFlight, prefix, maxMs: 3_600_000 });
      for (const pid of pids) control(pid, '-i', 'off');
      if (measured.errors) throw new Error(`${measured.errors} calls failed through ${variant.name}`);
      dump += 1;
      for (const pid of pids) control(pid, '--dump');
      const [relay, upstream] = await Promise.all(outs.map((out) => counted(out, dump)));
      perCall[inFlight] = { relay: relay / total, upstream: upstream / total };
      // A gateway that lost its upstream (a timeout under valgrind) starts a new, cold one: not comparable.
      if (childOf(peer.pid) !== pids[1]) throw new Error(`the upstream of ${variant.name} was restarted`);
      if (keep) {
        for (const [i, out] of outs.entries()) {
          const who = i === 0 ? variant.kind : 'upstream';
          const name = `${index}-${variant.kind}-${inFlight}-${who}`;
          copyFileSync(`${out}.${dump}`, join(keep, `${name}.callgrind`));
          const map = `/tmp/perf-${pids[i]}.map`;
          if (existsSync(map)) copyFileSync(map, join(keep, `${name}.map`));
        }
      }
    }
  } finally {
    await peer.close();
    for (const out of outs)
      for (const file of [out, `${out}.1`, `${out}.2`, `${out}.3`]) rmSync(file, { force: true });
  }
  return perCall;
}

const k = (n) => `${(n / 1000).toFixed(1)}k`;
for (const [index, variant] of variants.entries()) {
  const perCall = await run(variant, index);
  console.log(variant.name);
  for (const inFlight of inFlights) {
    const { relay, upstream } = perCall[inFlight];
    console.log(
      `  ${inFlight} in flight: ${k(relay)} instructions per call (upstream ${k(upstream)}), ratio ${(relay / upstream).toFixed(2)}×`,
    );
  }
}
