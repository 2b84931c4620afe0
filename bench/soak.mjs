#!/usr/bin/env node
// `npm run soak`: is memory flat under sustained load? 100,000 tools/call (echo and add in turn, 16 in flight)
// per mode — stdio, HTTP with JSON answers, HTTP with SSE answers, stateless HTTP, and 2026-07-28 requests
// — and 100,000 tasks in each of their two forms over stdio (`tasks`: a 2025-11-25 task-augmented call and
// its `tasks/result`; `tasks-2026`: a call declaring the extension, then `tasks/get` until it is done; the
// server keeps a task 2 s, and reads memory once those of the batch expired), and 100,000 through the
// gateway (`gateway`: `toolwire gateway --stdio` in front of the fixture, its own memory read), each against a fresh `node --expose-gc bin/toolwire.mjs serve bench/soak-server.mjs`, with the server's
// heap after a full GC and its RSS read through its `memory` tool every 10,000 calls. A mode is flat when
// both grew at most 20 MB from the first reading (after the first 10,000 calls: the heap's working size
// and the JIT's code are reached by then) to the last (RSS: the RSS besides V8's committed heap, whose
// young generation may grow in a step; the lowest of the last three readings against the lowest of the
// first three, as the allocator's pages come and go). Prints a table; exits 1 when a mode is not flat or
// a call failed. Uses the benchmark's load generator (bench/load.mjs) and builds dist/ first when stale.
//
//   npm run soak
//   npm run soak -- --calls 5000 --every 1000 --bound-mb 1 --rss-bound-mb 32 --only stdio,http-json --json
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureBuilt } from '../scripts/ensure-built.mjs';
import { gatewayArgs } from './gateway.mjs';
import { HttpPool } from './http-pool.mjs';
import {
  STATELESS_META,
  StdioPeer,
  measureCalls,
  httpCalls,
  httpSession,
  post,
  responseOf,
  spawnHttp,
  stdioCalls,
} from './load.mjs';

process.chdir(dirname(dirname(fileURLToPath(import.meta.url))));
const { values: flags } = parseArgs({
  options: {
    calls: { type: 'string', default: '100000' },
    every: { type: 'string', default: '10000' },
    'bound-mb': { type: 'string', default: '20' },
    'rss-bound-mb': { type: 'string' },
    only: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const CALLS = Number(flags.calls);
const EVERY = Number(flags.every);
const BOUND_MB = Number(flags['bound-mb']);
/** RSS may get its own bound: over a short run it mostly shows the heap growing to its working size. */
const RSS_BOUND_MB = Number(flags['rss-bound-mb'] ?? flags['bound-mb']);
const SERVE = ['--expose-gc', 'bin/toolwire.mjs', 'serve', 'bench/soak-server.mjs'];
/** The revision the `tasks` mode speaks: the first with tasks (their 2025-11-25 form). */
const TASKS_VERSION = '2025-11-25';
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** How long the soak server keeps a task (bench/soak-server.mjs). */
const TASK_TTL_MS = 2_000;
const say = flags.json
  ? (line) => process.stderr.write(`${line}\n`)
  : (line) => process.stdout.write(`${line}\n`);

/** Each mode: how to start its server, make `count` calls, and read the server's memory. */
const MODES = [
  {
    id: 'stdio',
    async start() {
      const peer = new StdioPeer(process.execPath, SERVE);
      await peer.initialize();
      return {
        calls: (total) => stdioCalls(peer, { total, inFlight: 16, maxMs: 600_000 }),
        memory: async () => memoryOf(await peer.request('tools/call', { name: 'memory', arguments: {} })),
        close: () => peer.close(),
      };
    },
  },
  {
    // Each unit of work is a task: `tools/call` with `task` (2025-11-25, ttl 2 s), then `tasks/result`.
    id: 'tasks',
    async start() {
      const peer = new StdioPeer(process.execPath, SERVE);
      await peer.initialize(TASKS_VERSION);
      const task = { ttl: TASK_TTL_MS };
      const oneTask = async (n) => {
        const params = { name: 'task_echo', arguments: { text: `task ${n}` }, task };
        const created = await peer.request('tools/call', params);
        const taskId = created.result?.task?.taskId;
        if (typeof taskId !== 'string') return false;
        const done = await peer.request('tasks/result', { taskId });
        return done.result?.content?.[0]?.text === `task ${n}`;
      };
      return {
        calls: (total) => measureCalls(peer.pid, { total, workers: 16, maxMs: 600_000 }, oneTask),
        // Read once the batch's tasks have expired and been swept (the store sweeps as a task is created):
        // otherwise each reading holds the ≈2 s of tasks still kept, as many as the load happened to make.
        memory: async () => {
          await new Promise((resolve) => setTimeout(resolve, task.ttl + 1_100));
          if (!(await oneTask(-1))) throw new Error('tasks: the task after the pause failed');
          return memoryOf(await peer.request('tools/call', { name: 'memory', arguments: {} }));
        },
        close: () => peer.close(),
      };
    },
  },
  {
    // Each unit of work is a task of the 2026-07-28 extension: `tools/call` declaring it, then `tasks/get`
    // until the task is done (its result inline).
    id: 'tasks-2026',
    async start() {
      const peer = new StdioPeer(process.execPath, SERVE);
      const _meta = {
        ...STATELESS_META,
        'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
      };
      const oneTask = async (n) => {
        const params = { name: 'task_echo', arguments: { text: `task ${n}` }, _meta };
        let task = (await peer.request('tools/call', params)).result;
        for (let polls = 0; task?.resultType === 'task' || task?.status === 'working'; polls++) {
          if (typeof task.taskId !== 'string' || polls > 100) return false;
          if (polls > 0) await new Promise((resolve) => setTimeout(resolve, 1));
          task = (await peer.request('tasks/get', { taskId: task.taskId, _meta })).result;
        }
        return task?.status === 'completed' && task.result?.content?.[0]?.text === `task ${n}`;
      };
      return {
        calls: (total) => measureCalls(peer.pid, { total, workers: 16, maxMs: 600_000 }, oneTask),
        memory: async () => {
          await new Promise((resolve) => setTimeout(resolve, TASK_TTL_MS + 1_100));
          if (!(await oneTask(-1))) throw new Error('tasks-2026: the task after the pause failed');
          const memory = { name: 'memory', arguments: {}, _meta: STATELESS_META };
          return memoryOf(await peer.request('tools/call', memory));
        },
        close: () => peer.close(),
      };
    },
  },
  {
    // `toolwire gateway --stdio` (policy: allow) in front of the fixture; the gateway's memory is read
    // through bench/memory-preload.mjs (SIGUSR2: collect, then write process.memoryUsage()).
    id: 'gateway',
    async start() {
      const dir = mkdtempSync(join(tmpdir(), 'soak-gateway-'));
      const file = join(dir, 'memory.json');
      const preload = ['--import', './bench/memory-preload.mjs'];
      const peer = new StdioPeer(process.execPath, [...preload, ...gatewayArgs('.')], { MEMORY_OUT: file });
      await peer.initialize();
      return {
        calls: (total) => stdioCalls(peer, { total, inFlight: 16, maxMs: 600_000, prefix: 'fx__' }),
        async memory() {
          rmSync(file, { force: true });
          process.kill(peer.pid, 'SIGUSR2');
          for (let i = 0; i < 250 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 20));
          const usage = JSON.parse(readFileSync(file, 'utf8'));
          return memoryOf({ result: { structuredContent: { ...usage, gc: true } } });
        },
        async close() {
          await peer.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  { id: 'http-json', flags: ['--json'], stateful: true },
  { id: 'http-sse', flags: [], stateful: true },
  { id: 'stateless', flags: ['--stateless', '--json'], stateful: false },
  { id: '2026-07-28', flags: ['--json'], stateful: false, stateless: true },
].filter((mode) => !flags.only || flags.only.split(',').includes(mode.id));

/** An HTTP mode: a server with the mode's flags, 16 keep-alive connections, one session when stateful. */
async function startHttp(mode) {
  const server = await spawnHttp(process.execPath, [...SERVE, '--http', '--port', '0', ...mode.flags]);
  const pool = new HttpPool(server.url, 16);
  const session = mode.stateful ? await httpSession(pool) : undefined;
  const load = {
    connections: 16,
    stateful: mode.stateful,
    stateless: mode.stateless,
    pool,
    session,
    maxMs: 600_000,
  };
  let id = 0;
  return {
    calls: (total) => httpCalls(server, { ...load, total }),
    async memory() {
      const params = { name: 'memory', arguments: {}, ...(mode.stateless ? { _meta: STATELESS_META } : {}) };
      const res = await post(
        pool,
        { jsonrpc: '2.0', id: `memory-${++id}`, method: 'tools/call', params },
        session,
        mode.stateless,
      );
      return memoryOf(responseOf(res.body));
    },
    async close() {
      pool.destroy();
      await server.close();
    },
  };
}

function memoryOf(response) {
  const value = response?.result?.structuredContent;
  if (!value?.gc) throw new Error(`memory: ${JSON.stringify(response).slice(0, 200)}`);
  return {
    heapMb: value.heapUsed / 2 ** 20,
    rssMb: value.rss / 2 ** 20,
    committedMb: value.heapTotal / 2 ** 20,
    externalMb: value.external / 2 ** 20,
  };
}

async function soakMode(mode) {
  const run = mode.start ? await mode.start() : await startHttp(mode);
  const readings = [];
  let errors = 0;
  let done = 0;
  let busyMs = 0; // the calls' time, not the readings' (the tasks modes pause before each)
  try {
    while (done < CALLS) {
      const batch = Math.min(EVERY, CALLS - done);
      const started = performance.now();
      const result = await run.calls(batch);
      busyMs += performance.now() - started;
      errors += result.errors + (batch - result.calls);
      done += batch;
      readings.push({ calls: done, ...(await run.memory()) });
    }
  } finally {
    await run.close();
  }
  const first = readings[0];
  const last = readings.at(-1);
  const heapGrowthMb = last.heapMb - first.heapMb;
  // RSS moves by a few MB from one reading to the next as the allocator keeps or returns pages: its growth
  // is taken between the lowest of the first three readings and the lowest of the last three (a leak
  // raises every reading; one high reading is not a leak).
  const low = (list, of) => Math.min(...list.map(of));
  const rss = (r) => r.rssMb;
  const rssLowMb = { first: low(readings.slice(0, 3), rss), last: low(readings.slice(-3), rss) };
  // What is judged is the RSS besides V8's committed heap: V8 grows its young generation (the semi-spaces,
  // up to 3 × 16 MB) when a scavenge finds many objects alive, which lifts the RSS by 15–35 MB in one step
  // while the heap left after a full GC stays flat (measured: V8's heap 31 → 46–49 MB, RSS +15..+34 MB, in
  // about one soak run of three, in either stateless mode). A leak of JS objects shows in the heap after
  // GC; a leak of native memory in the RSS outside V8's heap.
  const native = (r) => r.rssMb - r.committedMb;
  const nativeLowMb = { first: low(readings.slice(0, 3), native), last: low(readings.slice(-3), native) };
  const rssGrowthMb = rssLowMb.last - rssLowMb.first;
  const nativeGrowthMb = nativeLowMb.last - nativeLowMb.first;
  return {
    mode: mode.id,
    calls: done,
    errors,
    callsPerSec: done / (busyMs / 1000),
    readings,
    heapGrowthMb,
    rssLowMb,
    rssGrowthMb,
    nativeLowMb,
    nativeGrowthMb,
    flat: heapGrowthMb <= BOUND_MB && nativeGrowthMb <= RSS_BOUND_MB,
  };
}

await ensureBuilt(say);
say(
  `toolwire soak: ${CALLS.toLocaleString('en')} calls per mode, memory every ${EVERY.toLocaleString('en')}, flat = at most +${BOUND_MB} MB`,
);
const results = [];
for (const mode of MODES) {
  const result = await soakMode(mode);
  results.push(result);
  say(
    `  ${result.flat && result.errors === 0 ? 'flat' : 'NOT FLAT'} ${mode.id} (${result.callsPerSec.toFixed(0)} calls/s)`,
  );
}
const ok = results.every((r) => r.flat && r.errors === 0);
if (flags.json)
  process.stdout.write(
    `${JSON.stringify({ calls: CALLS, every: EVERY, boundMb: BOUND_MB, ok, results }, null, 2)}\n`,
  );
else {
  const mb = (v) => v.toFixed(1);
  const signed = (v) => `${v >= 0 ? '+' : ''}${v.toFixed(1)}`;
  const rows = results.map((r) => [
    r.mode,
    r.calls.toLocaleString('en'),
    String(r.errors),
    r.callsPerSec.toFixed(0),
    `${mb(r.readings[0].heapMb)} → ${mb(r.readings.at(-1).heapMb)} (${signed(r.heapGrowthMb)})`,
    `${mb(r.rssLowMb.first)} → ${mb(r.rssLowMb.last)} (${signed(r.rssGrowthMb)})`,
    `${mb(r.nativeLowMb.first)} → ${mb(r.nativeLowMb.last)} (${signed(r.nativeGrowthMb)})`,
    r.flat && r.errors === 0 ? 'flat' : 'NOT FLAT',
  ]);
  const header = [
    'mode',
    'calls',
    'errors',
    'calls/s',
    'heap after GC, MB',
    'RSS (lowest of 3), MB',
    'RSS besides V8 heap, MB',
    'verdict',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  say('');
  say(line(header));
  say(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) say(line(row));
  say(`\nat each reading, MB: heap after GC / RSS / V8's committed heap / external (buffers) after GC`);
  for (const r of results) {
    say(`  ${r.mode.padEnd(11)} heap     ${r.readings.map((x) => mb(x.heapMb)).join(' ')}`);
    say(`  ${''.padEnd(11)} RSS      ${r.readings.map((x) => mb(x.rssMb)).join(' ')}`);
    say(`  ${''.padEnd(11)} V8 heap  ${r.readings.map((x) => mb(x.committedMb)).join(' ')}`);
    say(`  ${''.padEnd(11)} external ${r.readings.map((x) => mb(x.externalMb)).join(' ')}`);
  }
}
process.exit(ok ? 0 : 1);
