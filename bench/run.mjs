// The benchmark (issue 6): toolwire vs the official SDK 1.x and 2.x, same fixture, same wire-level
// load generator (bench/load.mjs), interleaved per repetition (A, B, C, A, B, C, …), medians and
// ratios against SDK 1.x. Writes bench/results/<date>[-quick|-full].md and .json.
//
//   npm run bench                 # normal: 5 repetitions, 100k-request soak  (~14 min, 2 cores)
//   npm run bench -- --quick      # 3 repetitions, small counts               (< 1 min)
//   npm run bench -- --full       # 5 repetitions, larger counts, 100k soak
//   node bench/run.mjs --only=toolwire,sdk1   # a subset of servers (needs `npm run build` first)
//   node bench/run.mjs --only=gateway         # the gateway rows alone (bench/gateway.mjs)
//   node bench/run.mjs --only=clients         # the real-client tables alone (bench/client-load.mjs)
//   node bench/run.mjs --only=redis           # the Redis rows alone (bench/redis.mjs)
//   node bench/run.mjs --suffix=NAME          # results/<date>[-mode][-parts]-NAME.md (never overwritten)
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CLIENT_CONFIG, clientPhase, clientTables } from './client-load.mjs';
import { gatewayPhase, gatewayRedisTable, gatewayTable } from './gateway.mjs';
import {
  StdioPeer,
  coldStart,
  httpCalls,
  listAll,
  nodeFloor,
  rssKb,
  rssPerSessions,
  soak,
  spawnHttp,
  stdioCalls,
} from './load.mjs';
import { REDIS_CONFIG, redisPhase, redisTables } from './redis.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
process.chdir(root);

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    full: { type: 'boolean' },
    only: { type: 'string' },
    reps: { type: 'string' },
    suffix: { type: 'string' },
  },
});
const MODE = flags.quick ? 'quick' : flags.full ? 'full' : 'normal';
const CONFIG = {
  quick: {
    reps: 3,
    warm: 5000,
    httpWarm: 1000,
    seq: 800,
    pipe: 4000,
    http: 500,
    conns: [1, 16],
    sse: false,
    lists: 5,
    colds: 2,
    sessions: 200,
    soak: 3000,
  },
  normal: {
    reps: 5,
    warm: 40_000,
    httpWarm: 6000,
    seq: 2000,
    pipe: 20_000,
    http: 2000,
    conns: [1, 16, 64],
    sse: true,
    lists: 10,
    colds: 4,
    sessions: 1000,
    soak: 100_000,
  },
  full: {
    reps: 5,
    warm: 60_000,
    httpWarm: 10_000,
    seq: 5000,
    pipe: 50_000,
    http: 5000,
    conns: [1, 16, 64],
    sse: true,
    lists: 20,
    colds: 6,
    sessions: 1000,
    soak: 100_000,
  },
}[MODE];
if (flags.reps) CONFIG.reps = Number(flags.reps);

const SERVERS = [
  {
    id: 'toolwire',
    label: 'toolwire',
    stdio: ['node', ['bin/toolwire.mjs', 'serve', 'bench/fixture-server.mjs']],
    http: (f) => [
      'node',
      ['bin/toolwire.mjs', 'serve', 'bench/fixture-server.mjs', '--http', '--port', '0', ...f],
    ],
    stateful: true,
    stateless: true,
  },
  {
    id: 'sdk1',
    label: 'SDK 1.x',
    stdio: ['node', ['bench/sdk-v1-server.mjs']],
    http: (f) => ['node', ['bench/sdk-v1-server.mjs', '--http', '--port', '0', ...f]],
    stateful: true,
    stateless: false, // 1.x does not speak 2026-07-28
  },
  {
    id: 'sdk2',
    label: 'SDK 2.x',
    stdio: ['node', ['bench/sdk-v2-server.mjs']],
    http: (f) => ['node', ['bench/sdk-v2-server.mjs', '--http', '--port', '0', ...f]],
    stateful: false, // createMcpHandler serves each request on its own
    stateless: true,
  },
].filter((s) => !flags.only || flags.only.split(',').includes(s.id));
/** The gateway rows run unless `--only` names servers and not `gateway`. */
const GATEWAY_ROWS = !flags.only || flags.only.split(',').includes('gateway');
const gatewaySamples = {};
const gatewayFailures = [];
/** The real-client tables run unless `--only` names servers and not `clients`; in 3 repetitions at most. */
const CLIENT_ROWS = !flags.only || flags.only.split(',').includes('clients');
const CLIENT_REPS = 3;
const clientSamples = {};
/** The Redis rows run unless `--only` names servers and not `redis`. */
const REDIS_ROWS = !flags.only || flags.only.split(',').includes('redis');
const redisSamples = {};
const redisFailures = [];

const HTTP_MODES = [
  { id: 'stateful-json', stateful: true, flags: ['--json'] },
  { id: 'stateless-json', stateful: false, flags: ['--stateless', '--json'] },
  // 2026-07-28 requests (no initialize, no session; `_meta` + Mcp-Method/Mcp-Name) on the default server.
  { id: 'stateless-json', stateful: false, stateless: true, flags: ['--json'] },
  ...(CONFIG.sse
    ? [
        { id: 'stateful-sse', stateful: true, flags: [] },
        { id: 'stateless-sse', stateful: false, flags: ['--stateless'] },
      ]
    : []),
];

// samples[serverId][metricKey] = [values across repetitions]
const samples = Object.fromEntries(SERVERS.map((s) => [s.id, {}]));
const failures = [];
const record = (server, key, value) => {
  if (value === undefined || Number.isNaN(value)) return;
  (samples[server.id][key] ??= []).push(value);
};
const errorsSeen = Object.fromEntries(SERVERS.map((s) => [s.id, 0]));

async function attempt(server, what, fn) {
  try {
    return await fn();
  } catch (error) {
    failures.push(`${server.label}: ${what}: ${error?.message ?? error}`);
    process.stderr.write(`  ! ${server.label}: ${what}: ${error?.message ?? error}\n`);
    return undefined;
  }
}

function recordRun(server, prefix, run) {
  if (!run) return;
  errorsSeen[server.id] += run.errors;
  record(server, `${prefix}.cps`, run.callsPerSec);
  record(server, `${prefix}.p50`, run.p50Ms);
  record(server, `${prefix}.p99`, run.p99Ms);
  record(server, `${prefix}.cpu`, run.cpuUsPerCall);
}

/** spawn → exit of `node -e ''` with each environment: the floor, shown above the table. */
const floors = { client: [], inherited: [] };

/**
 * Cold starts, `CONFIG.colds` per server and repetition, taken in turns (toolwire, SDK 1.x, SDK 2.x,
 * toolwire, …) so that a noisy moment on the host falls on all of them alike; the median is over all.
 * Each is taken twice: with the environment an MCP client gives a stdio server (the target's row, see
 * `serverEnv` in load.mjs) and with this process's whole environment.
 */
async function coldPhase() {
  for (let i = 0; i < CONFIG.colds; i++) {
    floors.client.push(await nodeFloor());
    floors.inherited.push(await nodeFloor(true));
    for (const server of SERVERS) {
      for (const inheritEnv of [false, true]) {
        await attempt(server, 'cold start', async () => {
          const cold = await coldStart(...server.stdio, {}, { inheritEnv });
          record(server, inheritEnv ? 'coldInherited' : 'cold', cold.ms);
          await cold.peer.close();
        });
      }
    }
  }
}

async function stdioPhase(server) {
  const peer = (await coldStart(...server.stdio)).peer;
  try {
    await sleep(500);
    record(server, 'idleRss', rssKb(peer.pid) / 1024);
    await stdioCalls(peer, { total: CONFIG.warm, inFlight: 16 });
    recordRun(server, 'stdio1', await stdioCalls(peer, { total: CONFIG.seq, inFlight: 1 }));
    // As for HTTP: a warm-up at the measure's own concurrency after the sequential phase.
    await stdioCalls(peer, { total: CONFIG.seq, inFlight: 16 });
    recordRun(server, 'stdio16', await stdioCalls(peer, { total: CONFIG.pipe, inFlight: 16 }));
    recordRun(server, 'stdio64', await stdioCalls(peer, { total: CONFIG.pipe, inFlight: 64 }));
  } finally {
    await peer.close();
  }
}

/** 2026-07-28 tools/call on a fresh stdio connection: no initialize, every request carries `_meta`. */
async function statelessStdioPhase(server) {
  if (!server.stateless) return;
  const [command, args] = server.stdio;
  const peer = new StdioPeer(command, args);
  try {
    await stdioCalls(peer, { total: CONFIG.warm, inFlight: 16, stateless: true });
    recordRun(
      server,
      'modern16',
      await stdioCalls(peer, { total: CONFIG.pipe, inFlight: 16, stateless: true }),
    );
  } finally {
    await peer.close();
  }
}

/**
 * `tools/list` of the 1000-tool fixture, every page, on a fresh connection: after an initialize, or with
 * `stateless` as 2026-07-28 requests (no initialize; only servers that speak that revision).
 */
async function listPhase(server, stateless = false) {
  if (stateless && !server.stateless) return;
  const [command, args] = server.stdio;
  const peer = new StdioPeer(command, args, { MCP_BENCH_EXTRA_TOOLS: '1000' });
  try {
    if (!stateless) await peer.initialize();
    const list = await listAll(peer, CONFIG.lists + 1, stateless);
    if (list.tools !== 1002) throw new Error(`tools/list returned ${list.tools} tools, not 1002`);
    if (stateless) record(server, 'statelessList', list.medianMs);
    else {
      record(server, 'listFirst', list.firstMs);
      record(server, 'list', list.medianMs);
    }
  } finally {
    await peer.close();
  }
}

async function httpPhase(server, mode) {
  if (mode.stateful && !server.stateful) return;
  if (mode.stateless && !server.stateless) return;
  const [command, args] = server.http(mode.flags);
  const http = await spawnHttp(command, args);
  const load = { stateful: mode.stateful, stateless: mode.stateless ?? false };
  try {
    // A fresh server's JIT and heap take thousands of calls to settle (toolwire's CPU per call halves
    // between calls 2,000 and 6,000, the SDK's too): warm up that long, but at most 5 s for slow servers.
    await httpCalls(http, { total: CONFIG.httpWarm, connections: 16, maxMs: 5000, ...load });
    for (const connections of CONFIG.conns) {
      // Each measure gets a short warm-up at its own concurrency: after the sequential phase a server
      // reads ≈1.6× its steady CPU per call for a while (an idle server's heap shrinks between calls).
      await httpCalls(http, { total: CONFIG.http, connections, maxMs: 3000, ...load });
      recordRun(
        server,
        `http.${mode.id}.${connections}`,
        await httpCalls(http, { total: CONFIG.http, connections, ...load }),
      );
    }
  } finally {
    await http.close();
  }
}

async function sessionsPhase(server) {
  if (!server.stateful) return;
  const [command, args] = server.http(['--json']);
  const http = await spawnHttp(command, args);
  try {
    const result = await rssPerSessions(http, CONFIG.sessions);
    record(server, 'sessionsRss', result.mbPer1000);
    record(server, 'sessionsNextRss', result.nextMbPer1000);
  } finally {
    await http.close();
  }
}

async function soakPhase(server) {
  const stateful = server.stateful;
  const [command, args] = server.http(stateful ? ['--json'] : ['--stateless', '--json']);
  const http = await spawnHttp(command, args);
  try {
    const result = await soak(http, { total: CONFIG.soak, stateful });
    errorsSeen[server.id] += result.errors;
    record(server, 'soakKb', result.kbPerRequest);
    record(server, 'soakLateKb', result.lateKbPerRequest);
    record(server, 'soakRssAfter', result.rssAfterMb);
  } finally {
    await http.close();
  }
}

// ---------------------------------------------------------------- run, interleaved

const started = Date.now();
const machine = {
  date: new Date().toISOString(),
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  node: process.version,
  platform: `${os.type()} ${os.release()} ${os.arch()}`,
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  loadAverageAtStart: os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' '),
};
console.log(
  `toolwire benchmark (${MODE}): ${SERVERS.map((s) => s.label).join(', ')}, ${CONFIG.reps} repetitions`,
);
console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.date}`);

for (let rep = 1; rep <= CONFIG.reps; rep++) {
  if (SERVERS.length > 0) await coldPhase();
  if (GATEWAY_ROWS) {
    const t0 = Date.now();
    try {
      await gatewayPhase(CONFIG, (key, value) => (gatewaySamples[key] ??= []).push(value));
    } catch (error) {
      gatewayFailures.push(`gateway: ${error?.message ?? error}`);
      process.stderr.write(`  ! gateway: ${error?.message ?? error}\n`);
    }
    console.log(`  rep ${rep}/${CONFIG.reps} gateway: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  if (CLIENT_ROWS && rep <= CLIENT_REPS) {
    const t0 = Date.now();
    const config = CLIENT_CONFIG[MODE === 'quick' ? 'quick' : 'normal'];
    await clientPhase(config, (key, value) => (clientSamples[key] ??= []).push(value), {
      log: (line) => line.startsWith('  !') && process.stderr.write(`${line}\n`),
    });
    console.log(`  rep ${rep}/${CONFIG.reps} real clients: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  if (REDIS_ROWS) {
    const t0 = Date.now();
    try {
      await redisPhase(REDIS_CONFIG[MODE === 'quick' ? 'quick' : 'normal'], (key, value) =>
        (redisSamples[key] ??= []).push(value),
      );
    } catch (error) {
      redisFailures.push(`redis: ${error?.message ?? error}`);
      process.stderr.write(`  ! redis: ${error?.message ?? error}\n`);
    }
    console.log(`  rep ${rep}/${CONFIG.reps} redis: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  for (const server of SERVERS) {
    const t0 = Date.now();
    await attempt(server, 'stdio', () => stdioPhase(server));
    await attempt(server, 'stdio stateless', () => statelessStdioPhase(server));
    await attempt(server, 'tools/list', () => listPhase(server));
    await attempt(server, 'tools/list 2026-07-28', () => listPhase(server, true));
    for (const mode of HTTP_MODES) await attempt(server, `http ${mode.id}`, () => httpPhase(server, mode));
    console.log(`  rep ${rep}/${CONFIG.reps} ${server.label}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
}
// Memory measures take one run each (they are not noisy the way throughput is), still interleaved.
for (const server of SERVERS) {
  await attempt(server, 'sessions', () => sessionsPhase(server));
  await attempt(server, 'soak', () => soakPhase(server));
  console.log(`  memory ${server.label} done`);
}

// ---------------------------------------------------------------- report

const median = (list) => {
  if (!list || list.length === 0) return undefined;
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const ROWS = [
  { key: 'stdio1.cps', label: 'stdio sequential, calls/s', better: 'higher' },
  { key: 'stdio1.p50', label: 'stdio sequential, p50 ms', better: 'lower' },
  { key: 'stdio1.p99', label: 'stdio sequential, p99 ms', better: 'lower' },
  { key: 'stdio1.cpu', label: 'stdio sequential, server CPU µs/call', better: 'lower' },
  { key: 'stdio16.cps', label: 'stdio 16 in flight, calls/s', better: 'higher' },
  { key: 'stdio16.p50', label: 'stdio 16 in flight, p50 ms', better: 'lower' },
  { key: 'stdio16.p99', label: 'stdio 16 in flight, p99 ms', better: 'lower' },
  {
    key: 'stdio16.cpu',
    label: 'stdio 16 in flight, server CPU µs/call',
    better: 'lower',
    target: { abs: 6, sdkRef: 24 },
  },
  { key: 'stdio64.cps', label: 'stdio 64 in flight, calls/s', better: 'higher', target: { ratio: 2.5 } },
  { key: 'stdio64.p50', label: 'stdio 64 in flight, p50 ms', better: 'lower' },
  { key: 'stdio64.p99', label: 'stdio 64 in flight, p99 ms', better: 'lower' },
  { key: 'stdio64.cpu', label: 'stdio 64 in flight, server CPU µs/call', better: 'lower' },
  { key: 'modern16.cps', label: 'stdio 2026-07-28, 16 in flight, calls/s', better: 'higher' },
  { key: 'modern16.p99', label: 'stdio 2026-07-28, 16 in flight, p99 ms', better: 'lower' },
  { key: 'modern16.cpu', label: 'stdio 2026-07-28, 16 in flight, server CPU µs/call', better: 'lower' },
];
for (const mode of HTTP_MODES) {
  for (const c of CONFIG.conns) {
    const name = `HTTP ${mode.id}, ${c} conn${c > 1 ? 's' : ''}`;
    const k = `http.${mode.id}.${c}`;
    ROWS.push({
      key: `${k}.cps`,
      label: `${name}, calls/s`,
      better: 'higher',
      target: mode.id === 'stateless-json' && c === 16 ? { ratio: 10 } : undefined,
    });
    ROWS.push({ key: `${k}.p99`, label: `${name}, p99 ms`, better: 'lower' });
    ROWS.push({
      key: `${k}.cpu`,
      label: `${name}, server CPU µs/call`,
      better: 'lower',
      target: mode.id === 'stateful-json' && c === 16 ? { abs: 30, sdkRef: 114 } : undefined,
    });
  }
}
ROWS.push(
  { key: 'listFirst', label: 'tools/list 1000 tools, first list ms', better: 'lower' },
  {
    key: 'list',
    label: 'tools/list 1000 tools, ms (median of later lists)',
    better: 'lower',
    target: { abs: 6, sdkRef: 49 },
  },
  {
    key: 'statelessList',
    label: 'tools/list 1000 tools, 2026-07-28, ms (median of later lists)',
    better: 'lower',
  },
  {
    key: 'cold',
    label: `cold start stdio (spawn → first result), ms (median of ${CONFIG.reps * CONFIG.colds}, in turns)`,
    better: 'lower',
    target: { abs: 110, sdkRef: 217 },
  },
  {
    key: 'coldInherited',
    label: "cold start stdio with the bench host's whole environment, ms",
    better: 'lower',
  },
  { key: 'idleRss', label: 'idle RSS after first call, MB', better: 'lower' },
  { key: 'sessionsRss', label: 'RSS per 1000 HTTP sessions (the first 1000), MB', better: 'lower' },
  {
    key: 'sessionsNextRss',
    label: 'RSS per 1000 HTTP sessions (the next 3000, after warm-up), MB',
    better: 'lower',
    target: { abs: 15, sdkRef: 63 },
  },
  {
    key: 'soakKb',
    label: `RSS growth over a ${CONFIG.soak / 1000}k-request soak, KB/request`,
    better: 'lower',
  },
  {
    key: 'soakLateKb',
    label: `RSS growth over the soak's second half (after warm-up), KB/request`,
    better: 'lower',
    target: { flat: 0.2 },
  },
  { key: 'soakRssAfter', label: 'RSS after the soak, MB', better: 'lower' },
);

const fmt = (v) => {
  if (v === undefined) return 'n/a';
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2);
};

const results = [];
for (const row of ROWS) {
  const med = Object.fromEntries(SERVERS.map((s) => [s.id, median(samples[s.id][row.key])]));
  const base = med.sdk1;
  const ratio = (v) => (v === undefined || base === undefined || base === 0 ? undefined : v / base);
  let verdict = '';
  const tw = med.toolwire;
  if (row.target && tw !== undefined) {
    if (row.target.abs !== undefined && base !== undefined) {
      // The issue's targets are ratios to SDK 1.x in the same run; an absolute target is the ratio of
      // the issue's table (target ÷ the SDK's figure on the machine it was measured on).
      const limit = row.target.abs / row.target.sdkRef;
      const r = tw / base;
      const absolute = `${fmt(tw)} vs ${row.target.abs} on the issue's machine`;
      verdict =
        r <= limit
          ? `met: ${r.toFixed(2)}× ≤ ${limit.toFixed(2)}× (${absolute})`
          : `missed: ${r.toFixed(2)}× vs ≤ ${limit.toFixed(2)}× (${absolute})`;
    } else if (row.target.ratio !== undefined && base !== undefined) {
      const r = tw / base;
      verdict =
        r >= row.target.ratio
          ? `met (≥ ${row.target.ratio}×)`
          : `missed: ${r.toFixed(2)}× vs ≥ ${row.target.ratio}×`;
    } else if (row.target.flat !== undefined) {
      verdict =
        tw <= row.target.flat // a heap that shrinks (negative growth) is flat too
          ? `met (flat: ≤ ${row.target.flat} KB/request)`
          : `missed: ${fmt(tw)} KB/request`;
    }
  }
  results.push({
    ...row,
    medians: med,
    samples: Object.fromEntries(SERVERS.map((s) => [s.id, samples[s.id][row.key] ?? []])),
    ratioToolwire: ratio(tw),
    ratioSdk2: ratio(med.sdk2),
    ratioToolwireSdk2:
      tw === undefined || med.sdk2 === undefined || med.sdk2 === 0 ? undefined : tw / med.sdk2,
    verdict,
  });
}

const ratioText = (r) => (r === undefined ? '' : `${r.toFixed(2)}×`);
const header = `| measure | ${SERVERS.map((s) => s.label).join(' | ')} | toolwire / SDK 1.x | SDK 2.x / SDK 1.x | toolwire / SDK 2.x | target (issue 6) |`;
const lines = [header, `|---|${SERVERS.map(() => '---:').join('|')}|---:|---:|---:|---|`];
for (const r of results) {
  if (SERVERS.every((s) => r.medians[s.id] === undefined)) continue;
  lines.push(
    `| ${r.label} | ${SERVERS.map((s) => fmt(r.medians[s.id])).join(' | ')} | ${ratioText(r.ratioToolwire)} | ${ratioText(r.ratioSdk2)} | ${ratioText(r.ratioToolwireSdk2)} | ${r.verdict} |`,
  );
}
const seconds = ((Date.now() - started) / 1000).toFixed(0);
const loadAverageAtEnd = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
const SERVERS_TEXT = `Servers: toolwire (\`bench/fixture-server.mjs\`, global rate limit off), \`@modelcontextprotocol/sdk\` 1.x
(\`bench/sdk-v1-server.mjs\`), \`@modelcontextprotocol/server\` 2.x (\`bench/sdk-v2-server.mjs\`; its
\`createMcpHandler\` has no sessions, so stateful rows are n/a). Load: \`bench/load.mjs\` (raw JSON-RPC over
pipes / raw HTTP/1.1 keep-alive, bench/http-pool.mjs), protocol 2025-06-18, calls alternate \`echo\` and \`add\`. The 2026-07-28 rows
(\`stateless\`: no initialize, \`_meta\` on every request, \`Mcp-Method\`/\`Mcp-Name\` headers on HTTP) compare
toolwire with SDK 2.x only: SDK 1.x does not speak that revision. Every server runs with the environment
the official SDK's stdio client gives a server (its \`getDefaultEnvironment()\`: HOME, LOGNAME, PATH, SHELL,
TERM, USER), plus \`MCP_BENCH_EXTRA_TOOLS\` where set; one row repeats the cold start with the bench host's
whole environment. Node itself (\`node -e ''\`, spawn → exit) took ${fmt(median(floors.client))} ms with the
first and ${fmt(median(floors.inherited))} ms with the second. Server CPU is
the run time of all the server's threads from /proc/<pid>/task/*/schedstat (ns), after a warm-up of
${CONFIG.warm} stdio / ${CONFIG.httpWarm} HTTP calls per server (a fresh server's CPU per call takes that
long to settle). Counts: ${JSON.stringify(CONFIG)}.
The load generator shares the 2 cores with the server, so calls/s are bounded by both; CPU µs/call is the
server's own cost. Targets are judged as issue 6 sets them, as ratios to SDK 1.x in the same run: an
absolute target of its table counts as its ratio to the SDK figure there (≤ 6 µs where the SDK took 24:
≤ 0.25×), with the absolute figure beside it.

`;
const markdown = `# toolwire benchmark — ${MODE} run, ${machine.date.slice(0, 10)}

${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, ${machine.platform}, Node ${machine.node};
load average at start ${machine.loadAverageAtStart}, at the end ${loadAverageAtEnd}; ${CONFIG.reps} interleaved repetitions (medians), ${seconds} s in all.
${SERVERS.length > 0 ? SERVERS_TEXT : ''}${SERVERS.length > 0 ? lines.join('\n') : ''}
${failures.length ? `\nFailures:\n${failures.map((f) => `- ${f}`).join('\n')}\n` : ''}${
  GATEWAY_ROWS
    ? `
## The gateway (issue 17)

A \`tools/call\` (echo and add, alternately) through \`toolwire gateway --stdio --default allow --upstream fx --
node bin/toolwire.mjs serve bench/fixture-server.mjs\` against the same calls made to the fixture directly
(bench/gateway.mjs). Gateway CPU is its own process's (not its child's); upstream CPU is the fixture's behind
it, in the same run (it speaks 2026-07-28 to the gateway, the \`auto\` era).

${gatewayTable((key) => median(gatewaySamples[key]))}

The same gateway with \`--redis\` (approvals, grants, audit records and live events on a local redis-server)
against its memory stores: an allowed call adds an audit record to a Redis stream and publishes its events.

${gatewayRedisTable((key) => median(gatewaySamples[key]))}
${gatewayFailures.length ? `\nFailures:\n${gatewayFailures.map((f) => `- ${f}`).join('\n')}\n` : ''}`
    : ''
}
${
  REDIS_ROWS
    ? `
## Many instances on Redis (issue 20)

Stateful Streamable HTTP \`tools/call\` (\`echo\`, JSON answers) on \`toolwire serve bench/fixture-server.mjs
--http --json\` with its memory stores against \`--redis URL\` (a local redis-server started by the bench,
scripts/redis.mjs), on one instance and on two (bench/redis.mjs), throughput-bound: a closed loop of 16 calls
in flight from a lean generator in the bench process (bench/call-loop.mjs: requests serialized once, raw
keep-alive sockets, every answer checked for status 200 and its JSON-RPC id and result). With two, the
generator spreads the calls itself (no proxy process on the cores): memory stores, sticky (each instance its
own session, each worker on one instance); Redis stores, one session for all calls, round robin (each worker's
calls alternate between the instances). Pinned: instance 1 on cpu0, instance 2 on cpu1 (\`taskset\`; the
generator and redis-server unpinned). CPU per call from /proc schedstat: the instances' together (each in
parentheses), the generator's (this process), redis-server's; Redis commands from \`INFO commandstats\`;
context switches of the instances' main threads from /proc/PID/status. Each variant starts fresh instances
and warms each up with ${REDIS_CONFIG[MODE === 'quick' ? 'quick' : 'normal'].warm} calls before its measured run. The other
workers on this host take CPU too: see "host CPUs busy" against "ours". Idle sessions:
\`initialize\` + \`notifications/initialized\`, then nothing, ${JSON.stringify(REDIS_CONFIG[MODE === 'quick' ? 'quick' : 'normal'].sessions)} of them after a first batch
(the heap's growth to its working size), RSS delta of the one instance and Redis \`used_memory\` delta, per
session. Counts: ${JSON.stringify(REDIS_CONFIG[MODE === 'quick' ? 'quick' : 'normal'])}; medians of ${CONFIG.reps}.

${redisTables(
  (key) => median(redisSamples[key]),
  (key) => redisSamples[key]?.length ?? 0,
)}
${redisFailures.length ? `\nFailures:\n${redisFailures.map((f) => `- ${f}`).join('\n')}\n` : ''}`
    : ''
}
${
  CLIENT_ROWS
    ? `
## Real clients (issue 19)

The official SDK clients as load generators (bench/client-load.mjs): one session, 16 \`echo\` calls in flight,
against toolwire, SDK 1.x and a hand-written Node server with no validation (bench/raw-server.mjs, the limit),
each on a fresh server after a warm-up on the same session; server CPU per call from /proc of the server;
medians of ${Math.min(CLIENT_REPS, CONFIG.reps)} interleaved repetitions. Counts: ${JSON.stringify(CLIENT_CONFIG[MODE === 'quick' ? 'quick' : 'normal'])}.
The client's own CPU (far above the server's) bounds calls/s.

${clientTables(
  (key) => median(clientSamples[key]?.filter((v) => typeof v === 'number')),
  (key) => clientSamples[key]?.[0],
)}
${Object.entries(clientSamples)
  .filter(([key]) => key.endsWith('.failure'))
  .map(([key, list]) => `- failure ${key}: ${list.join('; ')}`)
  .join('\n')}`
    : ''
}
Non-result answers (errors) seen: ${SERVERS.map((s) => `${s.label} ${errorsSeen[s.id]}`).join(', ')}.
`;

const stamp = machine.date.slice(0, 10);
// A run of some parts only (`--only`) is named after them, so that it leaves a whole run's file alone.
const part = flags.only ? `-${flags.only.split(',').join('+')}` : '';
// `--suffix NAME` names a run apart from others of the same day and parts; an existing file is never
// overwritten (the name takes a number).
const name = `${stamp}${MODE === 'normal' ? '' : `-${MODE}`}${part}${flags.suffix ? `-${flags.suffix}` : ''}`;
let base = join(here, 'results', name);
for (let n = 2; existsSync(`${base}.md`) || existsSync(`${base}.json`); n++)
  base = join(here, 'results', `${name}-${n}`);
mkdirSync(dirname(base), { recursive: true });
// Formatted with the repo's prettier, so `npm run lint` (prettier --check .) accepts the committed file.
const prettier = await import('prettier').catch(() => undefined);
const formatted = prettier
  ? await prettier.format(markdown, {
      ...(await prettier.resolveConfig(`${base}.md`)),
      filepath: `${base}.md`,
    })
  : markdown;
writeFileSync(`${base}.md`, formatted);
writeFileSync(
  `${base}.json`,
  `${JSON.stringify({ mode: MODE, machine, config: CONFIG, failures, errorsSeen, results, gateway: gatewaySamples, clients: clientSamples, redis: redisSamples }, null, 2)}\n`,
);
console.log(`\n${formatted}`);
console.log(`wrote ${base}.md and .json`);
