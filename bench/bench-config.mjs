// What the benchmark measures and how much (bench/run.mjs): the counts of each mode, the servers
// compared (toolwire, the official SDK 1.x and 2.x on the same fixture) and the HTTP modes they are
// measured in.

/** Counts per mode: `--quick`, the default (`normal`) and `--full`. */
export const BENCH_CONFIG = {
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
};

/** The real-client tables run in 3 repetitions at most. */
export const CLIENT_REPS = 3;

/** The servers compared, by `--only` id: how to start each on stdio and on HTTP, and what it speaks. */
export const BENCH_SERVERS = [
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
];

/** The HTTP modes each server is measured in (the SSE ones when the mode's counts ask for them). */
export function httpModes(config) {
  return [
    { id: 'stateful-json', stateful: true, flags: ['--json'] },
    { id: 'stateless-json', stateful: false, flags: ['--stateless', '--json'] },
    // 2026-07-28 requests (no initialize, no session; `_meta` + Mcp-Method/Mcp-Name) on the default server.
    { id: 'stateless-json', stateful: false, stateless: true, flags: ['--json'] },
    ...(config.sse
      ? [
          { id: 'stateful-sse', stateful: true, flags: [] },
          { id: 'stateless-sse', stateful: false, flags: ['--stateless'] },
        ]
      : []),
  ];
}
