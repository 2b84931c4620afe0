// The real-client driver (issue 19): the official SDK clients as load generators — 1.x `Client`
// (`@modelcontextprotocol/sdk`) and 2.x `Client` (`@modelcontextprotocol/client`) — one session, 16 calls
// of `echo` in flight, over stdio and Streamable HTTP (SSE answers, the default, and JSON answers),
// against toolwire, the official SDK 1.x server and a hand-written raw Node server with no validation
// (bench/raw-server.mjs: the limit). What each server costs is read from /proc of the server process
// (load.mjs `cpuMicros`: the scheduler's run time of all its threads), so the client's own cost, far
// higher than bench/load.mjs's raw generator, stays out of it; calls/s are bounded by the client.
//
//   node bench/client-load.mjs [--quick] [--reps=3] [--only=toolwire,sdk1,raw] [--sdks=v1,v2] [--paths=stdio,sse,json]
//   node bench/run.mjs --only=clients [--quick]     # these tables inside the benchmark's report
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION as V1_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { cpuMicros, percentile, serverEnv, spawnHttp } from './load.mjs';

// The SDK 1.x HTTP client gives every fetch the same AbortSignal, and each fetch adds a listener to it that
// goes only when the request is collected: past 1500 calls Node warns of a leak once per call. That is the
// client's own matter (the server is what is measured), so the warning is dropped here.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = (warning, ...rest) => {
  if (warning?.name === 'MaxListenersExceededWarning') return;
  emitWarning(warning, ...rest);
};

export const CLIENT_SERVERS = [
  { id: 'toolwire', label: 'toolwire', script: ['bin/toolwire.mjs', 'serve', 'bench/fixture-server.mjs'] },
  { id: 'sdk1', label: 'SDK 1.x', script: ['bench/sdk-v1-server.mjs'] },
  { id: 'raw', label: 'raw Node', script: ['bench/raw-server.mjs'] },
];

/**
 * The paths, with the issue's targets for toolwire's server CPU per call: ratios to the raw server and
 * to SDK 1.x, in the same run.
 */
export const CLIENT_PATHS = [
  { id: 'stdio', label: 'stdio', flags: undefined, target: { raw: 1.25 } },
  {
    id: 'sse',
    label: 'Streamable HTTP, SSE responses (the default)',
    flags: [],
    target: { raw: 1.5, sdk1: 0.35 },
  },
  { id: 'json', label: 'Streamable HTTP, JSON responses', flags: ['--json'], target: { raw: 1.25 } },
];

export const CLIENT_SDKS = [
  { id: 'v1', label: 'SDK 1.x client' },
  { id: 'v2', label: 'SDK 2.x client' },
];

const IN_FLIGHT = 16;

/**
 * Calls per measure. A fresh server's JIT takes thousands of calls to settle (toolwire's stdio CPU per call
 * read 15 µs after 10k calls and 11 µs after 20k, the raw server's 8.5 and 7.9), so every measure is
 * preceded by a warm-up on the same session; the SDK clients make ≈20–50k stdio and ≈1–1.5k HTTP calls/s.
 */
export const CLIENT_CONFIG = {
  quick: { stdio: { warm: 10_000, total: 10_000 }, http: { warm: 1500, total: 2000 } },
  normal: { stdio: { warm: 20_000, total: 20_000 }, http: { warm: 3000, total: 5000 } },
};
const ECHO = { name: 'echo', arguments: { text: 'hello, benchmark' } };

/** A connected SDK client on `path` to `server`; `pid` is the server process's. */
async function connect(sdk, path, server) {
  const Client = sdk === 'v1' ? ClientV1 : ClientV2;
  const client = new Client({ name: `toolwire-bench-${sdk}`, version: '1.0.0' });
  if (path.id === 'stdio') {
    const Stdio = sdk === 'v1' ? StdioV1 : StdioV2;
    // The environment the SDK's stdio client gives a server by default, as every bench server gets.
    const transport = new Stdio({
      command: process.execPath,
      args: server.script,
      env: serverEnv(),
      stderr: 'ignore',
    });
    await client.connect(transport);
    return { client, pid: transport.pid, close: () => client.close() };
  }
  const http = await spawnHttp(process.execPath, [...server.script, '--http', '--port', '0', ...path.flags]);
  try {
    const Http = sdk === 'v1' ? HttpV1 : HttpV2;
    await client.connect(new Http(new URL(http.url)));
  } catch (error) {
    await http.close();
    throw error;
  }
  return {
    client,
    pid: http.pid,
    async close() {
      await client.close().catch(() => undefined);
      await http.close();
    },
  };
}

/** `total` echo calls, `IN_FLIGHT` at a time (or until `maxMs`): calls/s, latency, server CPU per call. */
async function calls(client, pid, total, maxMs = 60_000) {
  const latencies = [];
  let errors = 0;
  let sent = 0;
  const cpu0 = cpuMicros(pid);
  const t0 = performance.now();
  const deadline = t0 + maxMs;
  const worker = async () => {
    while (sent < total && performance.now() < deadline) {
      sent++;
      const start = performance.now();
      try {
        const result = await client.callTool(ECHO);
        if (result.isError || result.content?.[0]?.text !== ECHO.arguments.text) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const elapsed = performance.now() - t0;
  const cpu = cpuMicros(pid) - cpu0;
  const sorted = Float64Array.from(latencies).sort();
  return {
    calls: latencies.length,
    errors,
    callsPerSec: (latencies.length / elapsed) * 1000,
    p50Ms: percentile(sorted, 50),
    cpuUsPerCall: cpu / latencies.length,
  };
}

/** One measure: a fresh server, one session, a warm-up, then the measured calls. */
export async function clientRun(sdk, path, server, config) {
  const { warm, total } = path.id === 'stdio' ? config.stdio : config.http;
  const peer = await connect(sdk, path, server);
  try {
    // The 2.x client tells what it negotiated; the 1.x client asks for its latest and gets it from all three.
    const version = sdk === 'v1' ? V1_VERSION : peer.client.getNegotiatedProtocolVersion();
    const warmed = await calls(peer.client, peer.pid, warm, 10_000);
    if (warmed.errors > 0) throw new Error(`${warmed.errors} of ${warmed.calls} warm-up calls failed`);
    return { ...(await calls(peer.client, peer.pid, total)), version };
  } finally {
    await peer.close();
  }
}

/**
 * One repetition of every measure, interleaved: for each path, each server in turn under each client.
 * `record(key, value)` keeps each figure (`client.<sdk>.<path>.<server>.cpu|cps|p50`).
 */
export async function clientPhase(
  config,
  record,
  { servers = CLIENT_SERVERS, sdks = CLIENT_SDKS, paths = CLIENT_PATHS, log } = {},
) {
  for (const path of paths) {
    for (const server of servers) {
      for (const sdk of sdks) {
        const key = `client.${sdk.id}.${path.id}.${server.id}`;
        try {
          const run = await clientRun(sdk.id, path, server, config);
          record(`${key}.cpu`, run.cpuUsPerCall);
          record(`${key}.cps`, run.callsPerSec);
          record(`${key}.p50`, run.p50Ms);
          record(`${key}.errors`, run.errors);
          record(`${key}.version`, run.version);
          log?.(
            `    ${sdk.label}, ${path.id}, ${server.label}: ${run.cpuUsPerCall.toFixed(1)} µs/call, ${Math.round(run.callsPerSec)} calls/s`,
          );
        } catch (error) {
          record(`${key}.failure`, String(error?.message ?? error));
          log?.(`  ! ${sdk.label}, ${path.id}, ${server.label}: ${error?.message ?? error}`);
        }
      }
    }
  }
}

const fmt = (v) => (v === undefined || Number.isNaN(v) ? 'n/a' : v >= 100 ? v.toFixed(0) : v.toFixed(1));
const ratio = (a, b) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);
const times = (r) => (r === undefined ? 'n/a' : `${r.toFixed(2)}×`);

/**
 * The real-client tables, one per client: server CPU µs per call (median), calls/s, and toolwire's ratios
 * to the raw server (the limit) and to SDK 1.x, judged against the issue's targets. `median(key)` gives a
 * measure's median; `first(key)` its first recorded value (the negotiated protocol version).
 */
export function clientTables(median, first, { sdks = CLIENT_SDKS, paths = CLIENT_PATHS } = {}) {
  const out = [];
  for (const sdk of sdks) {
    out.push(
      `**${sdk.label}** (one session, ${IN_FLIGHT} \`echo\` calls in flight; server CPU µs/call, calls/s in brackets; protocol ${
        paths.map((p) => first(`client.${sdk.id}.${p.id}.toolwire.version`)).find(Boolean) ?? '?'
      } with toolwire)`,
      '',
      '| path | toolwire | SDK 1.x | raw Node | toolwire ÷ raw | toolwire ÷ SDK 1.x | target |',
      '|---|---:|---:|---:|---:|---:|---|',
    );
    for (const path of paths) {
      const at = (server, m) => median(`client.${sdk.id}.${path.id}.${server}.${m}`);
      const cell = (server) => `${fmt(at(server, 'cpu'))} (${fmt(at(server, 'cps'))})`;
      const toRaw = ratio(at('toolwire', 'cpu'), at('raw', 'cpu'));
      const toSdk = ratio(at('toolwire', 'cpu'), at('sdk1', 'cpu'));
      const verdicts = [];
      if (path.target.raw !== undefined && toRaw !== undefined)
        verdicts.push(`÷ raw ≤ ${path.target.raw}×: ${toRaw <= path.target.raw ? 'met' : 'missed'}`);
      if (path.target.sdk1 !== undefined && toSdk !== undefined)
        verdicts.push(`÷ SDK 1.x ≤ ${path.target.sdk1}×: ${toSdk <= path.target.sdk1 ? 'met' : 'missed'}`);
      out.push(
        `| ${path.label} | ${cell('toolwire')} | ${cell('sdk1')} | ${cell('raw')} | ${times(toRaw)} | ${times(toSdk)} | ${verdicts.join('; ')} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

// ---------------------------------------------------------------- CLI

if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseArgs } = await import('node:util');
  const { dirname } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  process.chdir(dirname(dirname(fileURLToPath(import.meta.url))));
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      reps: { type: 'string' },
      only: { type: 'string' },
      sdks: { type: 'string' },
      paths: { type: 'string' },
    },
  });
  const pick = (list, names) => (names ? list.filter((x) => names.split(',').includes(x.id)) : list);
  const config = CLIENT_CONFIG[values.quick ? 'quick' : 'normal'];
  const reps = Number(values.reps ?? 3);
  const options = {
    servers: pick(CLIENT_SERVERS, values.only),
    sdks: pick(CLIENT_SDKS, values.sdks),
    paths: pick(CLIENT_PATHS, values.paths),
    log: (line) => console.log(line),
  };
  const samples = {};
  const record = (key, value) => (samples[key] ??= []).push(value);
  const { loadavg } = await import('node:os');
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (let rep = 1; rep <= reps; rep++) {
    console.log(`  rep ${rep}/${reps}`);
    await clientPhase(config, record, options);
  }
  const median = (key) => {
    const list = samples[key]?.filter((v) => typeof v === 'number');
    if (!list?.length) return undefined;
    const sorted = [...list].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  console.log(clientTables(median, (key) => samples[key]?.[0], options));
  const failed = Object.entries(samples).filter(([key]) => key.endsWith('.failure'));
  for (const [key, list] of failed) console.log(`failure ${key}: ${list.join('; ')}`);
}
