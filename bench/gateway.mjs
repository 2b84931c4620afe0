// The gateway rows (issue 17): a tools/call through `toolwire gateway --stdio` (policy: allow) in front of
// the bench fixture, against the same call made to the fixture directly, over the same raw JSON-RPC pipes
// (load.mjs), at 1 and 16 in flight. Latency is the load generator's; CPU is read from /proc for the
// gateway process alone (its own threads, not its child) and for the upstream fixture it spawned.
// Targets: the gateway's own CPU per call ≤ 1.5× the upstream toolwire server's (in the same run), and
// p50 added latency ≤ 1 ms on loopback.
//
//   node bench/run.mjs --only=gateway [--quick]     # these rows alone (after `npm run build`)
import { readFileSync } from 'node:fs';
import { StdioPeer, stdioCalls } from './load.mjs';

const FIXTURE = ['bin/toolwire.mjs', 'serve', 'bench/fixture-server.mjs'];
const GATEWAY = [
  'bin/toolwire.mjs',
  'gateway',
  '--stdio',
  '--default',
  'allow',
  '--api-port',
  '0',
  '--upstream',
  'fx',
  '--',
  process.execPath,
  ...FIXTURE,
];
const IN_FLIGHT = [1, 16];

/** The process the gateway spawned (its one upstream). */
function childOf(pid) {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
  if (children.length !== 1 || !children[0])
    throw new Error(`gateway ${pid} has children [${children}], not one`);
  return Number(children[0]);
}

/** One repetition: direct, then through the gateway; `record(key, value)` keeps each measure. */
export async function gatewayPhase(config, record) {
  const direct = new StdioPeer(process.execPath, FIXTURE);
  try {
    await direct.initialize();
    await stdioCalls(direct, { total: config.warm, inFlight: 16 });
    for (const inFlight of IN_FLIGHT) {
      await stdioCalls(direct, { total: config.seq, inFlight });
      const run = await stdioCalls(direct, { total: inFlight === 1 ? config.seq : config.pipe, inFlight });
      record(`direct${inFlight}.p50`, run.p50Ms);
      record(`direct${inFlight}.p99`, run.p99Ms);
      record(`direct${inFlight}.cpu`, run.cpuUsPerCall);
    }
  } finally {
    await direct.close();
  }
  const gateway = new StdioPeer(process.execPath, GATEWAY);
  try {
    await gateway.initialize(); // answered once the upstream is connected (the gateway serves after start)
    const pids = [gateway.pid, childOf(gateway.pid)];
    const calls = (total, inFlight) => stdioCalls(gateway, { total, inFlight, prefix: 'fx__', pids });
    const warm = await calls(config.warm, 16);
    if (warm.errors > 0) throw new Error(`${warm.errors} of ${warm.calls} calls through the gateway failed`);
    for (const inFlight of IN_FLIGHT) {
      await calls(config.seq, inFlight);
      const run = await calls(inFlight === 1 ? config.seq : config.pipe, inFlight);
      record(`gateway${inFlight}.p50`, run.p50Ms);
      record(`gateway${inFlight}.p99`, run.p99Ms);
      record(`gateway${inFlight}.cpu`, run.cpuUsPerCallOf[0]);
      record(`gateway${inFlight}.upstreamCpu`, run.cpuUsPerCallOf[1]);
      record(`gateway${inFlight}.errors`, run.errors);
    }
  } finally {
    await gateway.close();
  }
}

const fmt = (v) => (v === undefined || Number.isNaN(v) ? 'n/a' : v >= 100 ? v.toFixed(0) : v.toFixed(2));

/** The gateway table, from the medians of each measure. */
export function gatewayTable(median) {
  const lines = [
    '| in flight | direct p50 ms | gateway p50 ms | added p50 ms (target ≤ 1) | direct p99 ms | gateway p99 ms | fixture CPU µs/call, direct | upstream CPU µs/call | gateway CPU µs/call | gateway ÷ upstream CPU (target ≤ 1.5×) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const n of IN_FLIGHT) {
    const added = median(`gateway${n}.p50`) - median(`direct${n}.p50`);
    const ratio = median(`gateway${n}.cpu`) / median(`gateway${n}.upstreamCpu`);
    lines.push(
      `| ${n} | ${fmt(median(`direct${n}.p50`))} | ${fmt(median(`gateway${n}.p50`))} | ${fmt(added)} ${added <= 1 ? 'met' : 'missed'} | ${fmt(median(`direct${n}.p99`))} | ${fmt(median(`gateway${n}.p99`))} | ${fmt(median(`direct${n}.cpu`))} | ${fmt(median(`gateway${n}.upstreamCpu`))} | ${fmt(median(`gateway${n}.cpu`))} | ${fmt(ratio)}× ${ratio <= 1.5 ? 'met' : 'missed'} |`,
    );
  }
  return lines.join('\n');
}
