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
//
// The pieces: the counts and servers (bench-config.mjs), the per-server rows (server-rows.mjs) and their
// table (server-table.mjs), the report (report-markdown.mjs) and its files (results-file.mjs).
import os from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BENCH_CONFIG, BENCH_SERVERS, CLIENT_REPS, httpModes } from './bench-config.mjs';
import { CLIENT_CONFIG, clientPhase } from './client-load.mjs';
import { gatewayPhase } from './gateway.mjs';
import { REDIS_CONFIG, redisPhase } from './redis.mjs';
import { reportMarkdown } from './report-markdown.mjs';
import { resultsBase, writeResults } from './results-file.mjs';
import { ServerRows } from './server-rows.mjs';
import { serverResults, serverRowSpecs, serverTable } from './server-table.mjs';

process.chdir(dirname(dirname(fileURLToPath(import.meta.url))));

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
const CONFIG = BENCH_CONFIG[MODE];
if (flags.reps) CONFIG.reps = Number(flags.reps);

/** `--only` names servers and row groups; without it everything runs. */
const selected = (id) => !flags.only || flags.only.split(',').includes(id);
const SERVERS = BENCH_SERVERS.filter((s) => selected(s.id));
const HTTP_MODES = httpModes(CONFIG);
const serverRows = new ServerRows(CONFIG, SERVERS, HTTP_MODES);
const gateway = { rows: selected('gateway'), samples: {}, failures: [] };
/** The real-client tables run in `CLIENT_REPS` repetitions at most. */
const clients = { rows: selected('clients'), samples: {} };
const redis = { rows: selected('redis'), samples: {}, failures: [] };

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

const seconds = (t0) => ((Date.now() - t0) / 1000).toFixed(1);
for (let rep = 1; rep <= CONFIG.reps; rep++) {
  if (SERVERS.length > 0) await serverRows.coldPhase();
  if (gateway.rows) {
    const t0 = Date.now();
    try {
      await gatewayPhase(CONFIG, (key, value) => (gateway.samples[key] ??= []).push(value));
    } catch (error) {
      gateway.failures.push(`gateway: ${error?.message ?? error}`);
      process.stderr.write(`  ! gateway: ${error?.message ?? error}\n`);
    }
    console.log(`  rep ${rep}/${CONFIG.reps} gateway: ${seconds(t0)} s`);
  }
  if (clients.rows && rep <= CLIENT_REPS) {
    const t0 = Date.now();
    const config = CLIENT_CONFIG[MODE === 'quick' ? 'quick' : 'normal'];
    await clientPhase(config, (key, value) => (clients.samples[key] ??= []).push(value), {
      log: (line) => line.startsWith('  !') && process.stderr.write(`${line}\n`),
    });
    console.log(`  rep ${rep}/${CONFIG.reps} real clients: ${seconds(t0)} s`);
  }
  if (redis.rows) {
    const t0 = Date.now();
    try {
      await redisPhase(REDIS_CONFIG[MODE === 'quick' ? 'quick' : 'normal'], (key, value) =>
        (redis.samples[key] ??= []).push(value),
      );
    } catch (error) {
      redis.failures.push(`redis: ${error?.message ?? error}`);
      process.stderr.write(`  ! redis: ${error?.message ?? error}\n`);
    }
    console.log(`  rep ${rep}/${CONFIG.reps} redis: ${seconds(t0)} s`);
  }
  for (const server of SERVERS) {
    const t0 = Date.now();
    await serverRows.repetition(server);
    console.log(`  rep ${rep}/${CONFIG.reps} ${server.label}: ${seconds(t0)} s`);
  }
}
// Memory measures take one run each (they are not noisy the way throughput is), still interleaved.
for (const server of SERVERS) {
  await serverRows.memory(server);
  console.log(`  memory ${server.label} done`);
}

// ---------------------------------------------------------------- report

const results = serverResults(serverRowSpecs(CONFIG, HTTP_MODES), SERVERS, serverRows.samples);
const markdown = reportMarkdown({
  mode: MODE,
  config: CONFIG,
  machine,
  started,
  servers: SERVERS,
  lines: serverTable(results, SERVERS),
  rows: serverRows,
  gateway,
  redis,
  clients,
});
const base = resultsBase({ date: machine.date, mode: MODE, only: flags.only, suffix: flags.suffix });
const { failures, errorsSeen } = serverRows;
const formatted = await writeResults(base, markdown, {
  mode: MODE,
  machine,
  config: CONFIG,
  failures,
  errorsSeen,
  results,
  gateway: gateway.samples,
  clients: clients.samples,
  redis: redis.samples,
});
console.log(`\n${formatted}`);
console.log(`wrote ${base}.md and .json`);
