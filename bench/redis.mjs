// The Redis rows (issue 20): stateful Streamable HTTP `tools/call` (echo, JSON answers) on
// `toolwire serve --http --json` with its memory stores against `--redis URL` (sessions, streams, rate
// limits and tasks on a throwaway redis-server, scripts/redis.mjs), on one instance and on two,
// throughput-bound: a closed loop of 16 calls in flight from a lean generator in this process
// (bench/call-loop.mjs), which checks every answer and measures its own CPU. With two instances the
// generator spreads the calls itself (no proxy process on the cores): with memory stores each worker sticks
// to one instance and its own session there (what a sticky balancer does); with Redis stores one session
// serves every call and each worker's calls alternate between the instances (round robin). Unpinned, and
// pinned with `taskset` (instance i on CPU i; the generator and redis-server unpinned). Server CPU is the
// instances' together, from /proc schedstat, beside the generator's and redis-server's; the host's busy
// CPUs (/proc/stat), the instances' context switches and Redis's commands per call tell where the cores
// went. This host has two cores: the generator and redis-server run on the instances' cores.
//
// Memory of idle sessions: `initialize` + `notifications/initialized` sessions left idle, on one instance,
// after a first batch (the heap grows to its working size): RSS delta per session, and Redis's
// `INFO memory` `used_memory` delta per session. Target: ≤ 2 KB of process memory per idle session.
// 8,000 of them (with the first 1,000, under the default `maxSessions`, 10,000): over 2,000 the RSS moved
// by a factor of two between runs, as the heap grows in steps of megabytes. What holds the memory, by
// name: bench/heap-sessions.mjs.
//
//   node bench/run.mjs --only=redis [--quick]     # these rows alone (after `npm run build`)
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { provisionRedisServer, startRedisServer } from '../scripts/redis.mjs';
import { CallLoop } from './call-loop.mjs';
import { HttpPool } from './http-pool.mjs';
import { httpSession, rssKb, spawnHttp } from './load.mjs';

export const REDIS_CONFIG = {
  quick: { warm: 6000, calls: 3000, inFlight: 16, warmSessions: 1000, sessions: 8000 },
  normal: { warm: 6000, calls: 20_000, inFlight: 16, warmSessions: 1000, sessions: 8000 },
};
/**
 * Unpinned, then (where `taskset` is, on ≥ 2 CPUs) pinned: instance i on CPU i, the generator and
 * redis-server unpinned. `cpus`: the CPU of each instance.
 */
const TASKSET = findTaskset();
const VARIANTS = [undefined, [0, 1]]
  .filter((cpus) => !cpus || TASKSET)
  .flatMap((cpus) =>
    [
      { key: 'memory1', stores: 'memory', instances: 1 },
      { key: 'memory2', stores: 'memory', instances: 2 },
      { key: 'redis1', stores: 'Redis', instances: 1 },
      { key: 'redis2', stores: 'Redis', instances: 2 },
    ].map((v) => ({
      ...v,
      cpus: cpus?.slice(0, v.instances),
      key: cpus ? `${v.key}.pinned` : v.key,
    })),
  )
  .concat([
    // What costs more with two instances than with one: one instance with half the calls in flight (each
    // instance's share of the load with two), and two instances on the same CPU (two processes taking
    // turns on one core, the generator on the other).
    { key: 'memory1.half', stores: 'memory', instances: 1, inFlight: 8 },
    ...(TASKSET ? [{ key: 'memory2.oneCpu', stores: 'memory', instances: 2, cpus: [0, 0] }] : []),
  ]);
const ECHO = { name: 'echo', arguments: { text: 'hello, benchmark' } };

function findTaskset() {
  if (os.availableParallelism() < 2) return undefined;
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/bin', '/bin'])) {
    const path = join(dir || '.', 'taskset');
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** A `toolwire serve --http --json` instance (`cpu`: pinned to that CPU with taskset). */
const serve = (redisUrl, { nodeFlags = [], cpu } = {}) => {
  const args = [
    ...nodeFlags,
    'bin/toolwire.mjs',
    'serve',
    'bench/fixture-server.mjs',
    '--http',
    '--port',
    '0',
    '--json',
    ...(redisUrl ? ['--redis', redisUrl] : []),
  ];
  // taskset execs node: the child's pid is the server's.
  return cpu === undefined
    ? spawnHttp(process.execPath, args)
    : spawnHttp(TASKSET, ['-c', String(cpu), process.execPath, ...args]);
};

/** Redis's `used_memory` in bytes. */
async function usedMemory(client) {
  const info = await client.info('memory');
  const match = /^used_memory:(\d+)/m.exec(info);
  if (!match) throw new Error('INFO memory has no used_memory');
  return Number(match[1]);
}

/** Commands redis-server has run so far, by name (`INFO commandstats`). */
async function commandsRun(client) {
  const info = await client.info('commandstats');
  const calls = new Map();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1], Number(match[2]));
  return calls;
}

/** Commands run between two `commandsRun` readings, by name, but the `INFO` that took the second. */
function commandsBetween(before, after) {
  const delta = new Map();
  for (const [name, calls] of after) {
    const n = calls - (before.get(name) ?? 0) - (name === 'info' ? 1 : 0);
    if (n > 0) delta.set(name, n);
  }
  return delta;
}

/** The Redis commands of each variant's measured run, by name: the first repetition's, for the text. */
const commandsOf = new Map();

/** The key of the one-instance variant a two-instance one is compared with (the one on cpu0 for two on cpu0). */
function cps1(v) {
  return v.key === 'memory2.oneCpu' ? 'memory1.pinned' : v.key.replace('2', '1');
}

/** Jiffies of all CPUs since boot: busy (neither idle nor waiting for I/O) and in all (/proc/stat). */
function hostTicks() {
  const fields = readFileSync('/proc/stat', 'utf8')
    .split('\n', 1)[0]
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3] - fields[4], total };
}

/**
 * Context switches of a process's main thread (the one running JavaScript) so far, /proc/PID/status:
 * `waits` when it had nothing to do, `preempted` when another process took its CPU.
 */
function contextSwitches(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const count = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { waits: count('voluntary_ctxt_switches'), preempted: count('nonvoluntary_ctxt_switches') };
}

/**
 * One variant: its instances, warm-up, then the measured run; `record(key, value)` keeps each measure.
 * Throws when any call of the warm-up or the run failed (the run is then reported as failed).
 */
async function variant(v, redis, client, config, record) {
  const url = v.stores === 'Redis' ? redis.url : undefined;
  const instances = [];
  let loop;
  try {
    for (let i = 0; i < v.instances; i++) instances.push(await serve(url, { cpu: v.cpus?.[i] }));
    // Memory stores: each instance its own session, each worker on one instance (sticky). Redis stores:
    // one session, opened on the first instance, every worker's calls alternating between the instances.
    const setup = new HttpPool(instances[0].url, 1);
    const sessions = [];
    try {
      for (const instance of v.stores === 'memory' ? instances : instances.slice(0, 1)) {
        const pool = instance === instances[0] ? setup : new HttpPool(instance.url, 1);
        sessions.push(await httpSession(pool));
        if (pool !== setup) pool.destroy();
      }
    } finally {
      setup.destroy();
    }
    loop = new CallLoop({
      instances: instances.map((i) => i.url),
      sessionOf: (i) => sessions[i % sessions.length],
      params: ECHO,
      inFlight: v.inFlight ?? config.inFlight,
      roundRobin: v.stores === 'Redis' && v.instances > 1,
    });
    const pids = [...instances.map((i) => i.pid), ...(url ? [redis.pid] : [])];
    // `warm` calls on each instance: a second instance's code is as warm (JIT-compiled) as the first's.
    const warm = await loop.measure({ total: config.warm * v.instances, maxMs: 40_000, pids });
    if (warm.errors > 0)
      throw new Error(`${v.key}: ${warm.errors} of ${warm.calls} warm-up calls failed (${warm.firstError})`);
    const switches0 = instances.map((i) => contextSwitches(i.pid));
    const commands0 = url ? await commandsRun(client) : undefined;
    const host0 = hostTicks();
    const run = await loop.measure({ total: config.calls, maxMs: 20_000, pids });
    const host1 = hostTicks();
    // The INFO that read the first count is counted in the second.
    const commands = url ? commandsBetween(commands0, await commandsRun(client)) : undefined;
    if (run.errors > 0)
      throw new Error(`${v.key}: ${run.errors} of ${run.calls} calls failed (${run.firstError})`);
    const servers = run.cpuOf.slice(0, v.instances);
    record(`${v.key}.cps`, run.callsPerSec);
    record(`${v.key}.p50`, run.p50Ms);
    record(`${v.key}.p99`, run.p99Ms);
    const cpu = servers.reduce((a, b) => a + b, 0);
    record(`${v.key}.cpu`, cpu);
    servers.forEach((cpu, i) => record(`${v.key}.cpu${i + 1}`, cpu));
    record(`${v.key}.generatorCpu`, run.generatorCpu);
    for (const kind of ['waits', 'preempted']) {
      const switches = instances.reduce(
        (sum, i, n) => sum + contextSwitches(i.pid)[kind] - switches0[n][kind],
        0,
      );
      record(`${v.key}.${kind}`, switches / run.calls);
    }
    // The host's CPUs over the run: busy (every process), and ours (instances, generator, redis-server).
    const ours = (run.generatorCpu + run.cpuOf.reduce((a, b) => a + b, 0)) * run.callsPerSec;
    record(`${v.key}.hostBusy`, (host1.busy - host0.busy) / (host1.total - host0.total));
    record(`${v.key}.ours`, ours / 1e6 / os.availableParallelism());
    // Calls/s the CPU per call measured would allow on cores of our own: all processes within the CPUs,
    // each (single-threaded in the main) within one, and the instances pinned to one CPU within it.
    const each = [...run.cpuOf, run.generatorCpu];
    const perCpu = new Map();
    v.cpus?.forEach((cpu, i) => perCpu.set(cpu, (perCpu.get(cpu) ?? 0) + servers[i]));
    const total = each.reduce((a, b) => a + b, 0);
    record(
      `${v.key}.ceiling`,
      Math.min(
        (os.availableParallelism() * 1e6) / total,
        ...[...each, ...perCpu.values()].map((us) => 1e6 / us),
      ),
    );
    if (url) {
      record(`${v.key}.redisCpu`, run.cpuOf[v.instances]);
      let all = 0;
      for (const n of commands.values()) all += n;
      record(`${v.key}.redisCommands`, (all * 1000) / run.calls);
      if (!commandsOf.has(v.key)) commandsOf.set(v.key, { calls: run.calls, commands });
    }
    return { cps: run.callsPerSec, cpu };
  } finally {
    loop?.close();
    for (const instance of instances) await instance.close();
  }
}

/** Opens `count` sessions, 16 at a time, and leaves them idle. */
async function openSessions(pool, count) {
  let opened = 0;
  const worker = async () => {
    while (opened < count) {
      opened++;
      await httpSession(pool);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/**
 * Bytes of RSS (and of Redis `used_memory`, with Redis stores) per idle session on one instance. With
 * `heap`, also the live JS heap per session and what holds it, from heap snapshots before and after (each
 * taken after a full garbage collection), written on SIGUSR2 into a temporary directory.
 */
async function idleSessions(stores, redis, config, record, client, heap) {
  const dir = heap ? mkdtempSync(join(os.tmpdir(), 'toolwire-bench-heap-')) : undefined;
  const flags = heap ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`] : [];
  const instance = await serve(stores === 'Redis' ? redis.url : undefined, { nodeFlags: flags });
  const pool = new HttpPool(instance.url, 16);
  try {
    await openSessions(pool, config.warmSessions);
    await sleep(500);
    // A snapshot's own memory stays in the RSS: with `heap`, the heap alone is measured.
    const rss0 = rssKb(instance.pid);
    const used0 = stores === 'Redis' ? await usedMemory(client) : 0;
    const heap0 = heap ? await heapSnapshot(instance, dir) : undefined;
    await openSessions(pool, config.sessions);
    await sleep(500);
    const rss1 = rssKb(instance.pid);
    if (!heap) record(`${stores}.sessionRssBytes`, ((rss1 - rss0) * 1024) / config.sessions);
    if (stores === 'Redis' && !heap)
      record(`${stores}.sessionRedisBytes`, ((await usedMemory(client)) - used0) / config.sessions);
    // Idle past twice `sessionUnloadMs` (5 s): with Redis stores the process keeps no copy of them.
    // Freed heap stays in the RSS (V8 keeps its pages for reuse): as many sessions again, once the first
    // are unloaded, show what idle sessions add when they keep coming.
    if (stores === 'Redis' && !heap) {
      await sleep(UNLOADED_AFTER_MS);
      const rss2 = rssKb(instance.pid);
      record(`${stores}.sessionRssBytesUnloaded`, ((rss2 - rss0) * 1024) / config.sessions);
      await openSessions(pool, config.sessions);
      await sleep(UNLOADED_AFTER_MS);
      record(`${stores}.sessionRssBytesMore`, ((rssKb(instance.pid) - rss2) * 1024) / config.sessions);
    }
    if (heap) {
      const heap1 = await heapSnapshot(instance, dir);
      record(`${stores}.sessionHeapBytes`, (heap1.bytes - heap0.bytes) / config.sessions);
      if (stores === 'Redis') {
        await sleep(UNLOADED_AFTER_MS);
        const heap2 = await heapSnapshot(instance, dir);
        record(`${stores}.sessionHeapBytesUnloaded`, (heap2.bytes - heap0.bytes) / config.sessions);
      }
      heldPerSession = [...heap1.kinds]
        .map(([kind, [count, bytes]]) => {
          const [count0, bytes0] = heap0.kinds.get(kind) ?? [0, 0];
          return {
            kind,
            count: (count - count0) / config.sessions,
            bytes: (bytes - bytes0) / config.sessions,
          };
        })
        .filter((k) => k.bytes >= 16)
        .sort((a, b) => b.bytes - a.bytes)
        .slice(0, 12);
    }
  } finally {
    pool.destroy();
    await instance.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** Past twice the handler's default `sessionUnloadMs` (5 s), with a margin: idle copies are unloaded by then. */
const UNLOADED_AFTER_MS = 11_000;

/** What a heap snapshot of one session's worth holds, by kind: the first repetition's, for the table. */
let heldPerSession;

/**
 * A heap snapshot of `instance` (SIGUSR2): the live heap's bytes, and count and bytes by kind (node type
 * and constructor or string).
 */
async function heapSnapshot(instance, dir) {
  const before = new Set(readdirSync(dir));
  process.kill(instance.pid, 'SIGUSR2');
  // Node writes the file while it serves on: read it once it parses (bounded).
  let parsed;
  for (let tries = 0; !parsed; tries++) {
    if (tries >= 300) throw new Error(`no whole heap snapshot in ${dir} after 30 s`);
    await sleep(100);
    const file = readdirSync(dir).find((name) => !before.has(name) && name.endsWith('.heapsnapshot'));
    if (!file) continue;
    try {
      parsed = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      rmSync(join(dir, file));
    } catch {
      // not whole yet
    }
  }
  const { snapshot, nodes, strings } = parsed;
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const [TYPE, NAME, SIZE] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const kinds = new Map();
  let bytes = 0;
  for (let i = 0; i < nodes.length; i += fields.length) {
    const type = types[nodes[i + TYPE]];
    const size = nodes[i + SIZE];
    bytes += size;
    const kind = type === 'object' || type === 'closure' ? `${type} ${strings[nodes[i + NAME]]}` : type;
    const entry = kinds.get(kind) ?? [0, 0];
    entry[0]++;
    entry[1] += size;
    kinds.set(kind, entry);
  }
  return { bytes, kinds };
}

/** One repetition of every Redis row, on a redis-server of its own. */
export async function redisPhase(config, record) {
  const redis = await startRedisServer(provisionRedisServer());
  const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    // Every variant runs, and those that failed are reported together at the end.
    const failed = [];
    const cps = new Map();
    for (const v of VARIANTS) {
      try {
        const measured = await variant(v, redis, client, config, record);
        // Two instances over one, in this repetition (the runs next to each other: the host's load
        // changes less between them than between repetitions).
        const one = v.instances === 2 ? cps.get(cps1(v)) : undefined;
        if (one) {
          record(`${v.key}.ratio`, measured.cps / one.cps);
          record(`${v.key}.cpuRatio`, measured.cpu / one.cpu);
        }
        cps.set(v.key, measured);
      } catch (error) {
        record(`${v.key}.failed`, 1);
        failed.push(error?.message ?? String(error));
      }
    }
    for (const stores of ['memory', 'Redis']) await idleSessions(stores, redis, config, record, client);
    // What holds the memory: once, on an instance of its own (a snapshot's memory would enter the RSS).
    if (!heldPerSession) await idleSessions('Redis', redis, config, record, client, true);
    if (failed.length > 0) throw new Error(failed.join('; '));
  } finally {
    client.disconnect();
    await redis.close();
  }
}

const fmt = (v) =>
  v === undefined || Number.isNaN(v)
    ? 'n/a'
    : Math.abs(v) >= 1000
      ? Math.round(v).toLocaleString('en-US')
      : Math.abs(v) >= 100
        ? v.toFixed(0)
        : v.toFixed(2);

/** The Redis tables, from the medians of each measure (`count(key)`: how many samples a measure has). */
export function redisTables(median, count = () => 0) {
  const lines = [
    '| stores | instances | pinned | calls/s | p50 ms | p99 ms | server CPU µs/call (all instances) | generator CPU µs/call | redis-server CPU µs/call |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  const label = (v) =>
    `${v.stores}${v.instances > 1 ? (v.stores === 'memory' ? ' (sticky)' : ' (round robin)') : ''}${v.inFlight ? `, ${v.inFlight} in flight` : ''}`;
  const pinned = (v) => (v.cpus ? v.cpus.map((cpu) => `cpu${cpu}`).join(', ') : 'no');
  for (const v of VARIANTS) {
    const failed = count(`${v.key}.failed`);
    const cpu =
      v.instances > 1
        ? `${fmt(median(`${v.key}.cpu`))} (${Array.from({ length: v.instances }, (_, i) => fmt(median(`${v.key}.cpu${i + 1}`))).join(' + ')})`
        : fmt(median(`${v.key}.cpu`));
    lines.push(
      `| ${label(v)}${failed ? ` — failed in ${failed} repetitions` : ''} | ${v.instances} | ${pinned(v)} | ${fmt(median(`${v.key}.cps`))} | ${fmt(median(`${v.key}.p50`))} | ${fmt(median(`${v.key}.p99`))} | ${cpu} | ${fmt(median(`${v.key}.generatorCpu`))} | ${v.stores === 'Redis' ? fmt(median(`${v.key}.redisCpu`)) : '—'} |`,
    );
  }
  // Medians of each repetition's ratio (its two runs next to each other).
  const ratio = (v, key) => fmt(median(`${v.key}.${key}`));
  const twos = VARIANTS.filter((v) => v.instances === 2 && cps1(v));
  const name = (v) => `${v.stores}${v.cpus ? ` on ${pinned(v)}` : ''}`;
  lines.push(
    '',
    `Two instances over one (medians of each repetition's ratio), calls/s: ${twos.map((v) => `${name(v)} ${ratio(v, 'ratio')}×`).join(', ')}; server CPU per call: ${twos.map((v) => `${name(v)} ${ratio(v, 'cpuRatio')}×`).join(', ')}.`,
    '',
    "Where the cores went, per run: the host's CPUs busy (every process on the machine), our processes' share of them (instances, generator, redis-server), the instances' main threads' context switches per call (waits: nothing to do; preempted: another process took the CPU), Redis commands per 1,000 calls, and the calls/s the measured CPU per call would allow on two cores of our own (each process within one core, instances pinned to one CPU within it).",
    '',
    '| stores | instances | pinned | host CPUs busy | ours | server waits/call | server preempted/call | Redis commands per 1,000 calls | CPU-bound ceiling calls/s |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  );
  const pct = (key) => {
    const value = median(key);
    return value === undefined ? 'n/a' : `${Math.round(value * 100)}%`;
  };
  for (const v of VARIANTS) {
    lines.push(
      `| ${label(v)} | ${v.instances} | ${pinned(v)} | ${pct(`${v.key}.hostBusy`)} | ${pct(`${v.key}.ours`)} | ${fmt(median(`${v.key}.waits`))} | ${fmt(median(`${v.key}.preempted`))} | ${v.stores === 'Redis' ? fmt(median(`${v.key}.redisCommands`)) : '—'} | ${fmt(median(`${v.key}.ceiling`))} |`,
    );
  }
  const rss = median('Redis.sessionRssBytesMore');
  const heap = median('Redis.sessionHeapBytes');
  for (const [key, { calls, commands }] of commandsOf) {
    const list = [...commands].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ×${n}`);
    lines.push(
      '',
      `Redis commands during ${key}'s ${calls} measured calls (first repetition): ${list.join(', ') || 'none'}.`,
    );
  }
  // Per session, and per 1,000 sessions (MB of RSS, KB of Redis memory).
  const row = (label, rssKey, redisKey, verdict = '') => {
    const bytes = median(rssKey);
    const redisBytes = redisKey ? median(redisKey) : undefined;
    return `| ${label} | ${fmt(bytes)} B${verdict} | ${fmt((bytes * 1000) / 2 ** 20)} MB | ${redisKey ? `${fmt(redisBytes)} B` : '—'} | ${redisKey ? `${fmt((redisBytes * 1000) / 1024)} KB` : '—'} |`;
  };
  const used = 'Redis.sessionRedisBytes';
  lines.push(
    '',
    '| idle sessions, one instance | process RSS per session (target ≤ 2 KB with Redis) | RSS per 1,000 sessions | Redis `used_memory` per session | Redis memory per 1,000 sessions |',
    '|---|---:|---:|---:|---:|',
    row('memory stores', 'memory.sessionRssBytes'),
    row('Redis stores, idle 0.5 s (copies loaded)', 'Redis.sessionRssBytes', used),
    row(
      'Redis stores, idle 11 s (copies unloaded; the freed heap still in the RSS)',
      'Redis.sessionRssBytesUnloaded',
      used,
    ),
    row(
      'Redis stores, as many again once those were unloaded, idle 11 s',
      'Redis.sessionRssBytesMore',
      used,
      rss === undefined ? '' : rss <= 2048 ? ' (met)' : ` (missed: ${(rss / 2048).toFixed(1)}×)`,
    ),
  );
  if (heldPerSession) {
    lines.push(
      '',
      `Live JS heap per idle session with Redis stores, after a full garbage collection (heap snapshots before and after, first repetition): ${fmt(heap)} B with the copies loaded, ${fmt(median('Redis.sessionHeapBytesUnloaded'))} B once unloaded. What holds a loaded copy, per session (node type and constructor):`,
      '',
      '| kind | objects per session | bytes per session |',
      '|---|---:|---:|',
      ...heldPerSession.map(
        (k) => `| ${k.kind.replaceAll('|', '\\|')} | ${fmt(k.count)} | ${fmt(k.bytes)} |`,
      ),
    );
  }
  return lines.join('\n');
}
