// The per-server rows of the benchmark (bench/run.mjs): cold starts, stdio and HTTP calls, tools/list,
// sessions and the soak, run against each server with the wire-level load generator (bench/load.mjs).
// A `ServerRows` keeps the samples of every repetition, the failures and the errors seen.
import { setTimeout as sleep } from 'node:timers/promises';
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

export class ServerRows {
  /**
   * @param config the mode's counts (bench/bench-config.mjs `BENCH_CONFIG`)
   * @param servers the servers measured (`BENCH_SERVERS`, filtered by `--only`)
   * @param httpModes the HTTP modes (`httpModes(config)`)
   */
  constructor(config, servers, httpModes) {
    this.config = config;
    this.servers = servers;
    this.httpModes = httpModes;
    /** samples[serverId][metricKey] = [values across repetitions] */
    this.samples = Object.fromEntries(servers.map((s) => [s.id, {}]));
    this.failures = [];
    this.errorsSeen = Object.fromEntries(servers.map((s) => [s.id, 0]));
    /** spawn → exit of `node -e ''` with each environment: the floor, shown above the table. */
    this.floors = { client: [], inherited: [] };
  }

  record(server, key, value) {
    if (value === undefined || Number.isNaN(value)) return;
    (this.samples[server.id][key] ??= []).push(value);
  }

  async attempt(server, what, fn) {
    try {
      return await fn();
    } catch (error) {
      this.failures.push(`${server.label}: ${what}: ${error?.message ?? error}`);
      process.stderr.write(`  ! ${server.label}: ${what}: ${error?.message ?? error}\n`);
      return undefined;
    }
  }

  recordRun(server, prefix, run) {
    if (!run) return;
    this.errorsSeen[server.id] += run.errors;
    this.record(server, `${prefix}.cps`, run.callsPerSec);
    this.record(server, `${prefix}.p50`, run.p50Ms);
    this.record(server, `${prefix}.p99`, run.p99Ms);
    this.record(server, `${prefix}.cpu`, run.cpuUsPerCall);
  }

  /**
   * Cold starts, `config.colds` per server and repetition, taken in turns (toolwire, SDK 1.x, SDK 2.x,
   * toolwire, …) so that a noisy moment on the host falls on all of them alike; the median is over all.
   * Each is taken twice: with the environment an MCP client gives a stdio server (the target's row, see
   * `serverEnv` in load.mjs) and with this process's whole environment.
   */
  async coldPhase() {
    for (let i = 0; i < this.config.colds; i++) {
      this.floors.client.push(await nodeFloor());
      this.floors.inherited.push(await nodeFloor(true));
      for (const server of this.servers) {
        for (const inheritEnv of [false, true]) {
          await this.attempt(server, 'cold start', async () => {
            const cold = await coldStart(...server.stdio, {}, { inheritEnv });
            this.record(server, inheritEnv ? 'coldInherited' : 'cold', cold.ms);
            await cold.peer.close();
          });
        }
      }
    }
  }

  /** One repetition of a server's throughput rows: stdio, tools/list, then every HTTP mode. */
  async repetition(server) {
    await this.attempt(server, 'stdio', () => this.stdioPhase(server));
    await this.attempt(server, 'stdio stateless', () => this.statelessStdioPhase(server));
    await this.attempt(server, 'tools/list', () => this.listPhase(server));
    await this.attempt(server, 'tools/list 2026-07-28', () => this.listPhase(server, true));
    for (const mode of this.httpModes)
      await this.attempt(server, `http ${mode.id}`, () => this.httpPhase(server, mode));
  }

  /** A server's memory rows: one run each (they are not noisy the way throughput is). */
  async memory(server) {
    await this.attempt(server, 'sessions', () => this.sessionsPhase(server));
    await this.attempt(server, 'soak', () => this.soakPhase(server));
  }

  async stdioPhase(server) {
    const { config } = this;
    const peer = (await coldStart(...server.stdio)).peer;
    try {
      await sleep(500);
      this.record(server, 'idleRss', rssKb(peer.pid) / 1024);
      await stdioCalls(peer, { total: config.warm, inFlight: 16 });
      this.recordRun(server, 'stdio1', await stdioCalls(peer, { total: config.seq, inFlight: 1 }));
      // As for HTTP: a warm-up at the measure's own concurrency after the sequential phase.
      await stdioCalls(peer, { total: config.seq, inFlight: 16 });
      this.recordRun(server, 'stdio16', await stdioCalls(peer, { total: config.pipe, inFlight: 16 }));
      this.recordRun(server, 'stdio64', await stdioCalls(peer, { total: config.pipe, inFlight: 64 }));
    } finally {
      await peer.close();
    }
  }

  /** 2026-07-28 tools/call on a fresh stdio connection: no initialize, every request carries `_meta`. */
  async statelessStdioPhase(server) {
    if (!server.stateless) return;
    const { config } = this;
    const [command, args] = server.stdio;
    const peer = new StdioPeer(command, args);
    try {
      await stdioCalls(peer, { total: config.warm, inFlight: 16, stateless: true });
      this.recordRun(
        server,
        'modern16',
        await stdioCalls(peer, { total: config.pipe, inFlight: 16, stateless: true }),
      );
    } finally {
      await peer.close();
    }
  }

  /**
   * `tools/list` of the 1000-tool fixture, every page, on a fresh connection: after an initialize, or with
   * `stateless` as 2026-07-28 requests (no initialize; only servers that speak that revision).
   */
  async listPhase(server, stateless = false) {
    if (stateless && !server.stateless) return;
    const [command, args] = server.stdio;
    const peer = new StdioPeer(command, args, { MCP_BENCH_EXTRA_TOOLS: '1000' });
    try {
      if (!stateless) await peer.initialize();
      const list = await listAll(peer, this.config.lists + 1, stateless);
      if (list.tools !== 1002) throw new Error(`tools/list returned ${list.tools} tools, not 1002`);
      if (stateless) this.record(server, 'statelessList', list.medianMs);
      else {
        this.record(server, 'listFirst', list.firstMs);
        this.record(server, 'list', list.medianMs);
      }
    } finally {
      await peer.close();
    }
  }

  async httpPhase(server, mode) {
    if (mode.stateful && !server.stateful) return;
    if (mode.stateless && !server.stateless) return;
    const { config } = this;
    const [command, args] = server.http(mode.flags);
    const http = await spawnHttp(command, args);
    const load = { stateful: mode.stateful, stateless: mode.stateless ?? false };
    try {
      // A fresh server's JIT and heap take thousands of calls to settle (toolwire's CPU per call halves
      // between calls 2,000 and 6,000, the SDK's too): warm up that long, but at most 5 s for slow servers.
      await httpCalls(http, { total: config.httpWarm, connections: 16, maxMs: 5000, ...load });
      for (const connections of config.conns) {
        // Each measure gets a short warm-up at its own concurrency: after the sequential phase a server
        // reads ≈1.6× its steady CPU per call for a while (an idle server's heap shrinks between calls).
        await httpCalls(http, { total: config.http, connections, maxMs: 3000, ...load });
        this.recordRun(
          server,
          `http.${mode.id}.${connections}`,
          await httpCalls(http, { total: config.http, connections, ...load }),
        );
      }
    } finally {
      await http.close();
    }
  }

  async sessionsPhase(server) {
    if (!server.stateful) return;
    const [command, args] = server.http(['--json']);
    const http = await spawnHttp(command, args);
    try {
      const result = await rssPerSessions(http, this.config.sessions);
      this.record(server, 'sessionsRss', result.mbPer1000);
      this.record(server, 'sessionsNextRss', result.nextMbPer1000);
    } finally {
      await http.close();
    }
  }

  async soakPhase(server) {
    const stateful = server.stateful;
    const [command, args] = server.http(stateful ? ['--json'] : ['--stateless', '--json']);
    const http = await spawnHttp(command, args);
    try {
      const result = await soak(http, { total: this.config.soak, stateful });
      this.errorsSeen[server.id] += result.errors;
      this.record(server, 'soakKb', result.kbPerRequest);
      this.record(server, 'soakLateKb', result.lateKbPerRequest);
      this.record(server, 'soakRssAfter', result.rssAfterMb);
    } finally {
      await http.close();
    }
  }
}
