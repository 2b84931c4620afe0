// A wire-level MCP load generator of its own (no toolwire client code): raw JSON-RPC lines over a
// child's stdio pipes, and raw HTTP/1.1 keep-alive requests for Streamable HTTP (bench/http-pool.mjs,
// a lean client, so the load takes as little as it can of the cores the server runs on). It measures the
// server process only through the wire and /proc/<pid> (CPU: utime+stime; memory: VmRSS).
//
// Used by bench/run.mjs; also usable alone against any server command, for example:
//   node bench/load.mjs stdio -- node bin/toolwire.mjs serve bench/fixture-server.mjs
//   node bench/load.mjs http  -- node bench/sdk-v1-server.mjs --http --port 0 --json
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { HttpPool } from './http-pool.mjs';

/**
 * The environment every server is spawned with: the one the official SDK's stdio client gives a server
 * (`getDefaultEnvironment()`: HOME, LOGNAME, PATH, SHELL, TERM, USER), plus the bench's own variables.
 * The host's other variables stay out of the measure: a `NODE_EXTRA_CA_CERTS` (set on the machine this
 * bench was written on) makes every Node process read and parse a CA bundle before it runs a line, ≈25 ms
 * of each cold start, whichever server it is. With `inherit`, the whole `process.env` is passed instead.
 */
export function serverEnv(env = {}, inherit = false) {
  return { ...(inherit ? process.env : getDefaultEnvironment()), ...env };
}

export const PROTOCOL_VERSION = '2025-06-18';
/** The stateless era: every request carries its protocol version, client info and capabilities. */
export const STATELESS_VERSION = '2026-07-28';
export const STATELESS_META = {
  'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'toolwire-bench-load', version: '1.0.0' },
};

/**
 * The params of the n-th tools/call: alternately echo and add (their names after `prefix`, e.g. a gateway's
 * `fx__`); with the stateless era's `_meta` when stateless.
 */
function callParams(n, stateless, prefix = '') {
  const params =
    n & 1
      ? { name: `${prefix}add`, arguments: { a: n, b: 1 } }
      : { name: `${prefix}echo`, arguments: ECHO_ARGS };
  return stateless ? { ...params, _meta: STATELESS_META } : params;
}
const CLK_TCK = 100; // getconf CLK_TCK on Linux
const ECHO_ARGS = { text: 'hello, benchmark' };

// ---------------------------------------------------------------- /proc of the server process

/**
 * CPU time of a process in microseconds, all its threads: the scheduler's run time from
 * `/proc/<pid>/task/<tid>/schedstat` (nanoseconds, brought up to date at every context switch — a
 * server that waits for I/O switches all the time), or utime + stime from `/proc/<pid>/stat` (10 ms
 * ticks: ±10 ms on every reading) where the kernel keeps no schedstat.
 */
export function cpuMicros(pid) {
  const scheduled = schedstatMicros(pid);
  return scheduled > 0 ? scheduled : tickMicros(pid);
}

function schedstatMicros(pid) {
  let ns = 0;
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const tid of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1000;
}

/** utime + stime in microseconds (all threads), at the kernel's tick resolution. */
export function tickMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime is field 14, stime field 15
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLK_TCK;
}

/** Resident set size in kB. */
export function rssKb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+)/.exec(status);
  return match ? Number(match[1]) : NaN;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summarize(latencies, calls, elapsedMs, cpuUs, errors) {
  const sorted = Float64Array.from(latencies).sort();
  return {
    calls,
    errors,
    callsPerSec: (calls / elapsedMs) * 1000,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    cpuUsPerCall: cpuUs / calls,
  };
}

export const initializeParams = () => ({
  protocolVersion: PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: 'toolwire-bench-load', version: '1.0.0' },
});

// ---------------------------------------------------------------- stdio

/** A spawned stdio server with a raw JSON-RPC line client on its pipes. */
export class StdioPeer {
  constructor(command, args, env = {}, { inheritEnv = false } = {}) {
    this.spawnedAt = performance.now();
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'], env: serverEnv(env, inheritEnv) });
    this.pid = this.child.pid;
    this.pending = new Map();
    this.nextId = 1;
    this.buffer = '';
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => this.onData(chunk));
    this.child.stdin.on('error', () => {});
  }

  onData(chunk) {
    let data = this.buffer + chunk;
    let start = 0;
    let nl;
    while ((nl = data.indexOf('\n', start)) !== -1) {
      const line = data.slice(start, nl);
      start = nl + 1;
      if (line.length === 0) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      if (message.id === undefined || message.method !== undefined) continue; // notification/request
      const entry = this.pending.get(message.id);
      if (entry) {
        this.pending.delete(message.id);
        entry(message);
      }
    }
    this.buffer = data.slice(start);
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method, params) {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) })}\n`);
  }

  async initialize(protocolVersion = PROTOCOL_VERSION) {
    const response = await this.request('initialize', { ...initializeParams(), protocolVersion });
    if (!response.result) throw new Error(`initialize failed: ${JSON.stringify(response)}`);
    this.notify('notifications/initialized');
    return response;
  }

  async close() {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** spawn → initialize → first tools/call result, in ms; leaves the peer open (for idle RSS). */
export async function coldStart(command, args, env, options) {
  const peer = new StdioPeer(command, args, env, options);
  await peer.initialize();
  const response = await peer.request('tools/call', { name: 'echo', arguments: ECHO_ARGS });
  const ms = performance.now() - peer.spawnedAt;
  if (!response.result) throw new Error(`first call failed: ${JSON.stringify(response)}`);
  return { peer, ms };
}

/** spawn → exit of `node -e ''`, in ms: the floor under every Node server's cold start. */
export async function nodeFloor(inherit = false) {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore', env: serverEnv({}, inherit) });
  await new Promise((resolve, reject) => child.once('exit', resolve).once('error', reject));
  return performance.now() - started;
}

/**
 * `total` tools/call requests with `inFlight` outstanding at a time (1 = sequential), or until
 * `maxMs` passes. Alternates echo and add (so both the text and the structuredContent paths run).
 */
export async function stdioCalls(
  peer,
  { total, inFlight, maxMs = 20_000, stateless = false, prefix = '', pids },
) {
  return measureCalls(pids ?? peer.pid, { total, workers: inFlight, maxMs }, async (n) => {
    const response = await peer.request('tools/call', callParams(n, stateless, prefix));
    return Boolean(response.result && !response.result.isError);
  });
}

/**
 * Runs `call(n)` for n = 0 … total-1 from `workers` concurrent loops (or until `maxMs` passes), timing
 * each, and reads the server's CPU around the run. `call` resolves true for a good answer. `pids`: the
 * server, or several processes (a gateway and its upstream), each read on its own: the result's
 * `cpuUsPerCall` is the first's, `cpuUsPerCallOf` has all of them.
 */
export async function measureCalls(pids, { total, workers, maxMs }, call) {
  const many = Array.isArray(pids);
  const pid = many ? pids[0] : pids;
  const latencies = [];
  let errors = 0;
  let sent = 0;
  const others0 = many ? pids.map((p) => cpuMicros(p)) : [];
  const cpu0 = cpuMicros(pid);
  const t0 = performance.now();
  const deadline = t0 + maxMs;
  const worker = async () => {
    while (sent < total && performance.now() < deadline) {
      const n = sent++;
      const start = performance.now();
      const ok = await call(n);
      latencies.push(performance.now() - start);
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  const elapsed = performance.now() - t0;
  const summary = summarize(latencies, latencies.length, elapsed, cpuMicros(pid) - cpu0, errors);
  if (many) summary.cpuUsPerCallOf = pids.map((p, i) => (cpuMicros(p) - others0[i]) / latencies.length);
  return summary;
}

/**
 * tools/list following every nextCursor; returns ms per full list (first, median) and the count. `stateless`:
 * as 2026-07-28 requests (the stateless era's `_meta` on each, no initialize needed).
 */
export async function listAll(peer, repeats, stateless = false) {
  const times = [];
  let count = 0;
  for (let r = 0; r < repeats; r++) {
    const start = performance.now();
    let cursor;
    count = 0;
    for (let page = 0; page < 1000; page++) {
      const params = cursor === undefined ? {} : { cursor };
      const response = await peer.request(
        'tools/list',
        stateless ? { ...params, _meta: STATELESS_META } : params,
      );
      if (!response.result) throw new Error(`tools/list failed: ${JSON.stringify(response)}`);
      count += response.result.tools.length;
      cursor = response.result.nextCursor;
      if (cursor === undefined) break;
    }
    times.push(performance.now() - start);
  }
  const rest = times.slice(1).sort((a, b) => a - b);
  return { tools: count, firstMs: times[0], medianMs: percentile(rest, 50) };
}

// ---------------------------------------------------------------- HTTP

/** Spawns an HTTP server whose first stdout line is its URL. */
export async function spawnHttp(command, args, env = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: serverEnv(env) });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)));
  child.stdout.setEncoding('utf8');
  const url = await new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`no URL from ${args.join(' ')}`)), 15_000);
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl !== -1) {
        clearTimeout(timer);
        resolve(buffer.slice(0, nl).trim());
      }
    });
    child.once('exit', (code) =>
      setTimeout(() => reject(new Error(`server exited (${code}) before its URL: ${stderr.trim()}`)), 50),
    );
  });
  child.stdout.resume();
  return {
    url,
    pid: child.pid,
    async close() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * One raw POST over `pool`; resolves { status, headers, body }. A stateless-era (stateless) request also
 * carries the request metadata headers its body implies (`Mcp-Method`, `Mcp-Name`).
 */
export function post(pool, message, sessionId, stateless = false) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': stateless ? STATELESS_VERSION : PROTOCOL_VERSION,
  };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  if (stateless) {
    headers['mcp-method'] = message.method;
    if (typeof message.params?.name === 'string') headers['mcp-name'] = message.params.name;
  }
  return pool.post(headers, JSON.stringify(message));
}

/** The JSON-RPC response inside a JSON or SSE body (the message carrying `id`). */
export function responseOf(body) {
  if (body.startsWith('{')) return JSON.parse(body);
  for (const line of body.split('\n')) {
    if (line.startsWith('data:')) {
      const message = JSON.parse(line.slice(5));
      if (message.id !== undefined && message.method === undefined) return message;
    }
  }
  return undefined;
}

/** initialize + notifications/initialized over HTTP; returns the session id (undefined if none). */
export async function httpSession(pool) {
  const init = await post(pool, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: initializeParams(),
  });
  const response = responseOf(init.body);
  if (init.status !== 200 || !response?.result)
    throw new Error(`initialize: ${init.status} ${init.body.slice(0, 200)}`);
  const sessionId = init.headers['mcp-session-id'];
  await post(pool, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
  return sessionId;
}

/**
 * `total` tools/call POSTs over `connections` keep-alive sockets (one request in flight each),
 * in one session (stateful) or none (stateless, or `stateless`: 2026-07-28 requests that need no
 * initialize), or until `maxMs` passes.
 */
export async function httpCalls(
  server,
  { total, connections, stateful, stateless = false, maxMs = 20_000, pool: given, session },
) {
  const pool = given ?? new HttpPool(server.url, connections);
  const sessionId = stateful && !stateless ? (session ?? (await httpSession(pool))) : undefined;
  const result = await measureCalls(server.pid, { total, workers: connections, maxMs }, async (n) => {
    const res = await post(
      pool,
      { jsonrpc: '2.0', id: n + 1, method: 'tools/call', params: callParams(n, stateless) },
      sessionId,
      stateless,
    );
    const message = res.status === 200 ? responseOf(res.body) : undefined;
    return Boolean(message?.result && !message.result.isError);
  });
  if (!given) pool.destroy();
  return result;
}

/**
 * Opens `count` initialize sessions (16 at a time), then `more` batches of `count`; returns the RSS
 * delta in MB per 1000 sessions for the first batch (which includes the heap growing to its working
 * size) and over the later batches together (what each further session costs; several batches, so one
 * garbage collection more or less at a reading moves the figure less).
 */
export async function rssPerSessions(server, count, more = 3) {
  const pool = new HttpPool(server.url, 16);
  const openSessions = async () => {
    let opened = 0;
    const worker = async () => {
      while (opened < count) {
        opened++;
        await httpSession(pool);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await sleep(300);
    return rssKb(server.pid);
  };
  await httpSession(pool); // warm
  await sleep(300);
  const before = rssKb(server.pid);
  const middle = await openSessions();
  let after = middle;
  for (let i = 0; i < more; i++) after = await openSessions();
  pool.destroy();
  const per1000 = (kb, sessions) => (kb / 1024) * (1000 / sessions);
  return {
    sessions: (1 + more) * count,
    rssBeforeMb: before / 1024,
    rssAfterMb: after / 1024,
    mbPer1000: per1000(middle - before, count),
    nextMbPer1000: per1000(after - middle, more * count),
  };
}

/**
 * RSS over `total` calls in one session (16 connections): KB per request of growth over the whole soak,
 * and over its second half alone (warm-up — heap growth to its working size — is over by then, so
 * growth there is what a leak looks like).
 */
export async function soak(server, { total, stateful }) {
  const pool = new HttpPool(server.url, 16);
  const session = stateful ? await httpSession(pool) : undefined;
  const load = { connections: 16, stateful, pool, session, maxMs: 240_000 };
  await httpCalls(server, { ...load, total: 1000 });
  await sleep(300);
  const before = rssKb(server.pid);
  const first = await httpCalls(server, { ...load, total: Math.ceil(total / 2) });
  await sleep(300);
  const middle = rssKb(server.pid);
  const second = await httpCalls(server, { ...load, total: Math.floor(total / 2) });
  await sleep(300);
  const after = rssKb(server.pid);
  pool.destroy();
  return {
    requests: first.calls + second.calls,
    errors: first.errors + second.errors,
    rssBeforeMb: before / 1024,
    rssAfterMb: after / 1024,
    kbPerRequest: (after - before) / (first.calls + second.calls),
    lateKbPerRequest: (after - middle) / second.calls,
  };
}

// ---------------------------------------------------------------- CLI

if (import.meta.url === `file://${process.argv[1]}`) {
  const dash = process.argv.indexOf('--');
  const kind = process.argv[2];
  const [command, ...args] = process.argv.slice(dash + 1);
  if (dash === -1 || !['stdio', 'http'].includes(kind)) {
    console.error('usage: node bench/load.mjs stdio|http -- COMMAND ARGS…');
    process.exit(2);
  }
  if (kind === 'stdio') {
    const { peer, ms } = await coldStart(command, args);
    console.log('cold start ms', ms.toFixed(1), 'rss MB', (rssKb(peer.pid) / 1024).toFixed(1));
    await stdioCalls(peer, { total: 2000, inFlight: 16 });
    for (const inFlight of [1, 16, 64])
      console.log(`in flight ${inFlight}`, await stdioCalls(peer, { total: 10_000, inFlight }));
    await peer.close();
  } else {
    const server = await spawnHttp(command, args);
    const stateful = !args.includes('--stateless');
    for (const connections of [1, 16, 64]) {
      console.log(
        `connections ${connections}`,
        await httpCalls(server, { total: 3000, connections, stateful }),
      );
    }
    await server.close();
  }
}
