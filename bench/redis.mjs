// The Redis rows (issue 20): stateful Streamable HTTP `tools/call` (echo, JSON answers) on
// `toolwire serve --http --json` with its memory stores against `--redis URL` (sessions, streams, rate
// limits and tasks on a throwaway redis-server, scripts/redis.mjs), on one instance and on two. With two,
// the load generator itself spreads the calls (no proxy process on the two cores): with memory stores each
// connection sticks to one instance and its own session there (what a sticky balancer does); with Redis
// stores one session serves every call and the calls alternate between the instances (round robin: every
// call lands on the other instance than the one before it). Server CPU is the instances' together, from
// /proc; redis-server's CPU is beside it.
//
// Memory of idle sessions: `initialize` + `notifications/initialized` sessions left idle, on one instance,
// after a first batch (the heap grows to its working size): RSS delta per session, and Redis's
// `INFO memory` `used_memory` delta per session. Target: ≤ 2 KB of process memory per idle session.
// 8,000 of them (with the first 1,000, under the default `maxSessions`, 10,000): over 2,000 the RSS moved
// by a factor of two between runs, as the heap grows in steps of megabytes. What holds the memory, by
// name: bench/heap-sessions.mjs.
//
//   node bench/run.mjs --only=redis [--quick]     # these rows alone (after `npm run build`)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { provisionRedisServer, startRedisServer } from '../scripts/redis.mjs';
import { HttpPool } from './http-pool.mjs';
import { httpSession, measureCalls, post, responseOf, rssKb, spawnHttp } from './load.mjs';

export const REDIS_CONFIG = {
  quick: { warm: 6000, calls: 3000, connections: 16, warmSessions: 1000, sessions: 8000 },
  normal: { warm: 6000, calls: 10_000, connections: 16, warmSessions: 1000, sessions: 8000 },
};
const VARIANTS = [
  { key: 'memory1', stores: 'memory', instances: 1 },
  { key: 'memory2', stores: 'memory', instances: 2 },
  { key: 'redis1', stores: 'Redis', instances: 1 },
  { key: 'redis2', stores: 'Redis', instances: 2 },
];
const ECHO = { name: 'echo', arguments: { text: 'hello, benchmark' } };

const serve = (redisUrl, nodeFlags = []) =>
  spawnHttp(process.execPath, [
    ...nodeFlags,
    'bin/toolwire.mjs',
    'serve',
    'bench/fixture-server.mjs',
    '--http',
    '--port',
    '0',
    '--json',
    ...(redisUrl ? ['--redis', redisUrl] : []),
  ]);

/** Redis's `used_memory` in bytes. */
async function usedMemory(client) {
  const info = await client.info('memory');
  const match = /^used_memory:(\d+)/m.exec(info);
  if (!match) throw new Error('INFO memory has no used_memory');
  return Number(match[1]);
}

/**
 * `total` echo calls from `connections` workers over the instances' pools; `route(n)` picks the pool and
 * session of the n-th call. Returns the run's summary (CPU of the instances together, and of Redis).
 */
async function calls(instances, pools, route, { total, connections, redisPid }) {
  const pids = [...instances.map((i) => i.pid), ...(redisPid ? [redisPid] : [])];
  const run = await measureCalls(pids, { total, workers: connections, maxMs: 20_000 }, async (n) => {
    const { pool, session } = route(n);
    const res = await post(pool, { jsonrpc: '2.0', id: n + 1, method: 'tools/call', params: ECHO }, session);
    const message = res.status === 200 ? responseOf(res.body) : undefined;
    return Boolean(message?.result && !message.result.isError);
  });
  const servers = instances.length;
  const serverCpu = run.cpuUsPerCallOf.slice(0, servers).reduce((a, b) => a + b, 0);
  return { ...run, serverCpu, redisCpu: redisPid ? run.cpuUsPerCallOf[servers] : undefined };
}

/** One variant: its instances, warm-up, then the measured run; `record(key, value)` keeps each measure. */
async function variant(v, redis, config, record) {
  const url = v.stores === 'Redis' ? redis.url : undefined;
  const instances = [];
  const pools = [];
  try {
    for (let i = 0; i < v.instances; i++) instances.push(await serve(url));
    const perPool = Math.ceil(config.connections / v.instances);
    for (const instance of instances) pools.push(new HttpPool(instance.url, perPool));
    // Call n on instance n mod N: in that instance's own session with memory stores (sticky), in one
    // session opened on the first instance with Redis stores (each call on the other instance).
    const sessions =
      v.stores === 'memory'
        ? await Promise.all(pools.map((pool) => httpSession(pool)))
        : [await httpSession(pools[0])];
    const route = (n) => ({ pool: pools[n % pools.length], session: sessions[n % sessions.length] });
    const load = { connections: config.connections, redisPid: url ? redis.pid : undefined };
    const warm = await calls(instances, pools, route, { ...load, total: config.warm });
    if (warm.errors > 0) throw new Error(`${v.key}: ${warm.errors} of ${warm.calls} calls failed`);
    const run = await calls(instances, pools, route, { ...load, total: config.calls });
    record(`${v.key}.cps`, run.callsPerSec);
    record(`${v.key}.p50`, run.p50Ms);
    record(`${v.key}.p99`, run.p99Ms);
    record(`${v.key}.cpu`, run.serverCpu);
    if (run.redisCpu !== undefined) record(`${v.key}.redisCpu`, run.redisCpu);
    record(`${v.key}.errors`, run.errors);
  } finally {
    for (const pool of pools) pool.destroy();
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
  const instance = await serve(stores === 'Redis' ? redis.url : undefined, flags);
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
    for (const v of VARIANTS) await variant(v, redis, config, record);
    for (const stores of ['memory', 'Redis']) await idleSessions(stores, redis, config, record, client);
    // What holds the memory: once, on an instance of its own (a snapshot's memory would enter the RSS).
    if (!heldPerSession) await idleSessions('Redis', redis, config, record, client, true);
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

/** The Redis tables, from the medians of each measure. */
export function redisTables(median) {
  const lines = [
    '| stores | instances | calls/s | p50 ms | p99 ms | server CPU µs/call (all instances) | redis-server CPU µs/call |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const v of VARIANTS) {
    const redisCpu = v.stores === 'Redis' ? fmt(median(`${v.key}.redisCpu`)) : '—';
    lines.push(
      `| ${v.stores}${v.instances > 1 ? (v.stores === 'memory' ? ' (sticky)' : ' (round robin)') : ''} | ${v.instances} | ${fmt(median(`${v.key}.cps`))} | ${fmt(median(`${v.key}.p50`))} | ${fmt(median(`${v.key}.p99`))} | ${fmt(median(`${v.key}.cpu`))} | ${redisCpu} |`,
    );
  }
  const rss = median('Redis.sessionRssBytesMore');
  const heap = median('Redis.sessionHeapBytes');
  lines.push(
    '',
    '| idle sessions, one instance | process RSS per session (target ≤ 2 KB with Redis) | Redis `used_memory` per session |',
    '|---|---:|---:|',
    `| memory stores | ${fmt(median('memory.sessionRssBytes'))} B | — |`,
    `| Redis stores, idle 0.5 s (copies loaded) | ${fmt(median('Redis.sessionRssBytes'))} B | ${fmt(median('Redis.sessionRedisBytes'))} B |`,
    `| Redis stores, idle 11 s (copies unloaded; the freed heap still in the RSS) | ${fmt(median('Redis.sessionRssBytesUnloaded'))} B | ${fmt(median('Redis.sessionRedisBytes'))} B |`,
    `| Redis stores, as many again once those were unloaded, idle 11 s | ${fmt(rss)} B${rss === undefined ? '' : rss <= 2048 ? ' (met)' : ` (missed: ${(rss / 2048).toFixed(1)}×)`} | ${fmt(median('Redis.sessionRedisBytes'))} B |`,
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
