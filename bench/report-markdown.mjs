// The benchmark's report (bench/run.mjs) as markdown: the machine, the per-server table with what it
// measured, then the sections of the gateway, Redis and real-client rows that ran.
import os from 'node:os';
import { CLIENT_REPS } from './bench-config.mjs';
import { CLIENT_CONFIG, clientTables } from './client-load.mjs';
import { gatewayPinnedTable, gatewayRedisTable, gatewayTable } from './gateway.mjs';
import { REDIS_CONFIG, redisTables } from './redis.mjs';
import { fmt, median } from './server-table.mjs';

/**
 * The report of a run started at `started` (ms): `lines` is the per-server table (bench/server-table.mjs),
 * `rows` the server rows' failures, floors and errors (bench/server-rows.mjs); `gateway`, `redis` and
 * `clients` say whether those rows ran (`rows`) and hold their samples (and failures).
 */
export function reportMarkdown({
  mode,
  config,
  machine,
  started,
  servers,
  lines,
  rows,
  gateway,
  redis,
  clients,
}) {
  const { failures, floors, errorsSeen } = rows;
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const loadAverageAtEnd = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const serversText = `Servers: toolwire (\`bench/fixture-server.mjs\`, global rate limit off), \`@modelcontextprotocol/sdk\` 1.x
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
${config.warm} stdio / ${config.httpWarm} HTTP calls per server (a fresh server's CPU per call takes that
long to settle). Counts: ${JSON.stringify(config)}.
The load generator shares the 2 cores with the server, so calls/s are bounded by both; CPU µs/call is the
server's own cost. Targets are judged as issue 6 sets them, as ratios to SDK 1.x in the same run: an
absolute target of its table counts as its ratio to the SDK figure there (≤ 6 µs where the SDK took 24:
≤ 0.25×), with the absolute figure beside it.

`;
  const markdown = `# toolwire benchmark — ${mode} run, ${machine.date.slice(0, 10)}

${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, ${machine.platform}, Node ${machine.node};
load average at start ${machine.loadAverageAtStart}, at the end ${loadAverageAtEnd}; ${config.reps} interleaved repetitions (medians), ${seconds} s in all.
${servers.length > 0 ? serversText : ''}${servers.length > 0 ? lines.join('\n') : ''}
${failures.length ? `\nFailures:\n${failures.map((f) => `- ${f}`).join('\n')}\n` : ''}${
    gateway.rows
      ? `
## The gateway (issue 17)

A \`tools/call\` (echo and add, alternately) through \`toolwire gateway --stdio --default allow --upstream fx --
node bin/toolwire.mjs serve bench/fixture-server.mjs\` against the same calls made to the fixture directly
(bench/gateway.mjs). Gateway CPU is its own process's (not its child's); upstream CPU is the fixture's behind
it, in the same run (it speaks 2026-07-28 to the gateway, the \`auto\` era).

${gatewayTable((key) => median(gateway.samples[key]))}

The same gateway with \`--redis\` (approvals, grants, audit records and live events on a local redis-server)
against its memory stores: an allowed call adds an audit record to a Redis stream and publishes its events.

${gatewayRedisTable((key) => median(gateway.samples[key]))}
${pinnedText(gatewayPinnedTable((key) => median(gateway.samples[key])))}${gateway.failures.length ? `\nFailures:\n${gateway.failures.map((f) => `- ${f}`).join('\n')}\n` : ''}`
      : ''
  }
${
  redis.rows
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
and warms each up with ${REDIS_CONFIG[mode === 'quick' ? 'quick' : 'normal'].warm} calls before its measured run. The other
workers on this host take CPU too: see "host CPUs busy" against "ours". Idle sessions:
\`initialize\` + \`notifications/initialized\`, then nothing, ${JSON.stringify(REDIS_CONFIG[mode === 'quick' ? 'quick' : 'normal'].sessions)} of them after a first batch
(the heap's growth to its working size), RSS delta of the one instance and Redis \`used_memory\` delta, per
session. Counts: ${JSON.stringify(REDIS_CONFIG[mode === 'quick' ? 'quick' : 'normal'])}; medians of ${config.reps}.

${redisTables(
  (key) => median(redis.samples[key]),
  (key) => redis.samples[key]?.length ?? 0,
)}
${redis.failures.length ? `\nFailures:\n${redis.failures.map((f) => `- ${f}`).join('\n')}\n` : ''}`
    : ''
}
${
  clients.rows
    ? `
## Real clients (issue 19)

The official SDK clients as load generators (bench/client-load.mjs): one session, 16 \`echo\` calls in flight,
against toolwire, SDK 1.x and a hand-written Node server with no validation (bench/raw-server.mjs, the limit),
each on a fresh server after a warm-up on the same session; server CPU per call from /proc of the server;
medians of ${Math.min(CLIENT_REPS, config.reps)} interleaved repetitions. Counts: ${JSON.stringify(CLIENT_CONFIG[mode === 'quick' ? 'quick' : 'normal'])}.
The client's own CPU (far above the server's) bounds calls/s.

${clientTables(
  (key) => median(clients.samples[key]?.filter((v) => typeof v === 'number')),
  (key) => clients.samples[key]?.[0],
)}
${Object.entries(clients.samples)
  .filter(([key]) => key.endsWith('.failure'))
  .map(([key, list]) => `- failure ${key}: ${list.join('; ')}`)
  .join('\n')}`
    : ''
}
Non-result answers (errors) seen: ${servers.map((s) => `${s.label} ${errorsSeen[s.id]}`).join(', ')}.
`;
  return markdown;
}

/** The gateway rows on one core, with what they are (nothing when they were not measured). */
function pinnedText(table) {
  if (table === '') return '';
  return `
The first rows again with every process on one core (\`taskset -c 0\`: the load generator, the gateway and its
upstream): no wakeups across cores, which on a small VM cost the writer of a pipe 15–25 µs of CPU each and move
a run's figures by ±15%; the ratio is steadier here. The target is read on the first rows.

${table}
`;
}
