// The gateway rows (issue 17): a tools/call through `toolwire gateway --stdio` (policy: allow) in front of
// the bench fixture, against the same call made to the fixture directly, over the same raw JSON-RPC pipes
// (load.mjs), at 1 and 16 in flight. Latency is the load generator's; CPU is read from /proc for the
// gateway process alone (its own threads, not its child) and for the upstream fixture it spawned.
// Targets: the gateway's own CPU per call ≤ 1.5× the upstream toolwire server's (in the same run), and
// p50 added latency ≤ 1 ms on loopback.
//
// The same gateway with `--redis` (its approvals, grants, audit records and events on a throwaway
// redis-server, scripts/redis.mjs) against it with its memory stores: what sharing costs a call the policy
// allows (an audit record in a Redis stream, and the call's events published), with the Redis server's CPU.
//
// And the gateway rows again with every process on one core (`taskset`, where it runs): no wakeups across
// cores, which on a small VM cost the writer of a pipe 15–25 µs of CPU each and move a run's figures by
// ±15%, so the ratio is steadier there. The target is read on the first rows.
//
//   node bench/run.mjs --only=gateway [--quick]     # these rows alone (after `npm run build`)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { provisionRedisServer, startRedisServer } from '../scripts/redis.mjs';
import { StdioPeer, stdioCalls } from './load.mjs';

/** `toolwire serve` of the bench fixture, from the checkout at `root`. */
export function fixtureArgs(root = '.') {
  return [join(root, 'bin/toolwire.mjs'), 'serve', join(root, 'bench/fixture-server.mjs')];
}

/**
 * `toolwire gateway --stdio` (policy: allow) in front of the fixture as upstream `fx`, from the checkout at
 * `root`, with `options` (e.g. `--redis URL`) before its upstream.
 */
export function gatewayArgs(root = '.', options = []) {
  const gateway = [join(root, 'bin/toolwire.mjs'), 'gateway', '--stdio', '--default', 'allow'];
  return [
    ...gateway,
    '--api-port',
    '0',
    ...options,
    '--upstream',
    'fx',
    '--',
    process.execPath,
    ...fixtureArgs(root),
  ];
}

const FIXTURE = fixtureArgs();
const GATEWAY = gatewayArgs();
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
  await viaGateway(GATEWAY, 'gateway', config, record);
  const redis = await startRedisServer(provisionRedisServer());
  try {
    await viaGateway(gatewayArgs('.', ['--redis', redis.url]), 'redis', config, record, [redis.pid]);
  } finally {
    await redis.close();
  }
  const cpus = affinity();
  if (cpus !== undefined && availableParallelism() > 1 && pin('0')) {
    try {
      await viaGateway(GATEWAY, 'pinned', config, record); // the gateway and its upstream inherit the core
    } finally {
      pin(cpus);
    }
  }
}

/** The CPUs this process may run on, as `taskset` lists them ("0-1"); undefined without `taskset`. */
function affinity() {
  try {
    const said = execFileSync('taskset', ['-pc', String(process.pid)], { encoding: 'utf8' });
    return said.slice(said.lastIndexOf(':') + 1).trim() || undefined;
  } catch {
    return undefined; // not Linux, or no util-linux: no pinned rows
  }
}

/** Sets the CPUs every thread of this process may run on (`taskset` syntax); false where it cannot. */
function pin(cpus) {
  try {
    execFileSync('taskset', ['-a', '-cp', cpus, String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Calls through a gateway started with `args`, recorded under `key`; `others`: more processes to read CPU of. */
async function viaGateway(args, key, config, record, others = []) {
  const gateway = new StdioPeer(process.execPath, args);
  try {
    await gateway.initialize(); // answered once the upstream is connected (the gateway serves after start)
    const pids = [gateway.pid, childOf(gateway.pid), ...others];
    const calls = (total, inFlight) => stdioCalls(gateway, { total, inFlight, prefix: 'fx__', pids });
    const warm = await calls(config.warm, 16);
    if (warm.errors > 0) throw new Error(`${warm.errors} of ${warm.calls} calls through the gateway failed`);
    for (const inFlight of IN_FLIGHT) {
      await calls(config.seq, inFlight);
      const run = await calls(inFlight === 1 ? config.seq : config.pipe, inFlight);
      record(`${key}${inFlight}.p50`, run.p50Ms);
      record(`${key}${inFlight}.p99`, run.p99Ms);
      record(`${key}${inFlight}.cpu`, run.cpuUsPerCallOf[0]);
      record(`${key}${inFlight}.upstreamCpu`, run.cpuUsPerCallOf[1]);
      if (others.length > 0) record(`${key}${inFlight}.redisCpu`, run.cpuUsPerCallOf[2]);
      record(`${key}${inFlight}.errors`, run.errors);
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

/** The gateway with its stores on Redis against memory, from the medians of each measure. */
export function gatewayRedisTable(median) {
  const lines = [
    '| in flight | stores | p50 ms | p99 ms | gateway CPU µs/call | redis-server CPU µs/call |',
    '|---:|---|---:|---:|---:|---:|',
  ];
  for (const n of IN_FLIGHT) {
    for (const [key, stores] of [
      ['gateway', 'memory'],
      ['redis', 'Redis'],
    ]) {
      const redisCpu = key === 'redis' ? fmt(median(`${key}${n}.redisCpu`)) : '—';
      lines.push(
        `| ${n} | ${stores} | ${fmt(median(`${key}${n}.p50`))} | ${fmt(median(`${key}${n}.p99`))} | ${fmt(median(`${key}${n}.cpu`))} | ${redisCpu} |`,
      );
    }
  }
  return lines.join('\n');
}

/** The gateway rows on one core, from the medians of each measure; '' when they were not measured. */
export function gatewayPinnedTable(median) {
  const measured = median('pinned1.cpu');
  if (typeof measured !== 'number' || Number.isNaN(measured)) return '';
  const lines = [
    '| in flight | gateway p50 ms | gateway CPU µs/call | upstream CPU µs/call | gateway ÷ upstream CPU |',
    '|---:|---:|---:|---:|---:|',
  ];
  for (const n of IN_FLIGHT) {
    const ratio = median(`pinned${n}.cpu`) / median(`pinned${n}.upstreamCpu`);
    lines.push(
      `| ${n} | ${fmt(median(`pinned${n}.p50`))} | ${fmt(median(`pinned${n}.cpu`))} | ${fmt(median(`pinned${n}.upstreamCpu`))} | ${fmt(ratio)}× |`,
    );
  }
  return lines.join('\n');
}
