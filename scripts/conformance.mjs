#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against toolwire:
// the server fixture (examples/conformance-server) with `--suite all`, then every client scenario
// (the 4 core ones and the 22 OAuth ones, `auth/*`) through the client adapter
// (examples/conformance-client), one at a time.
//
//   node scripts/conformance.mjs [--alpha] [--server-only | --client-only] [--scenario NAME] [--url URL]
//                                [--sdk-baseline] [--keep] [--verbose]
//
// --alpha runs the 0.2.0 pre-release instead (`npm run conformance:alpha`, also part of `npm test`),
// which covers 2026-07-28: the server scenarios twice, `--suite all` (each scenario at its default wire,
// the handshake era unless it exists only in 2026-07-28) and `--requirements 2026-07-28` (what that
// revision requires, at its stateless wire); then every client scenario, OAuth ones included, once per
// wire it applies to (the newest handshake-era revision it lists, and 2026-07-28).
//
// Both suite versions are installed once, side by side, into .conformance/ (ignored by git, never the
// project's own node_modules) the first time either runs: `npm ci` with scripts/conformance/package.json
// and its lock file, ≈6 MB of tarballs and no registry metadata to download, ≈52 MB on disk. The suite
// runs on the host's Node: it asks for Node 22 only for `fs.globSync`, which scripts/conformance/glob-sync.mjs
// gives it on Node 20 (>= 20.18.1, what its dependencies ask; see suiteEntry() in scripts/conformance/install.mjs). On an older Node 20,
// `node@22` (≈52 MB to download, ≈185 MB on disk) is installed into .conformance/node22/ and runs the
// suite. toolwire always runs on the host's Node. Every listener of the suite is kept on 127.0.0.1, and
// `localhost` means 127.0.0.1, by preloading scripts/conformance/loopback-only.cjs.
// Exits 1 when a server scenario has a FAILURE or a WARNING (the suite itself exits 0 on warnings, so
// the checks.json files are read) or a client scenario fails; 2 when the harness cannot run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { children, killGroup, startFixture, stop } from './conformance/children.mjs';
import { ensureInstalled, suiteEntry, suiteNodeVersion } from './conformance/install.mjs';
import { Reporter } from './conformance/reporter.mjs';
import { SuiteRunner, clientRuns, serverPasses } from './conformance/suite-runner.mjs';
import { ALPHA, ROOT, STABLE, STATELESS_REVISION } from './conformance/suites.mjs';

// The pieces, in scripts/conformance/: the suites and their Node (suites.mjs), their install
// (install.mjs), child processes and the fixture server (children.mjs), running the suite (suite-runner.mjs),
// reading its checks.json files (checks.mjs) and the report of each scenario (reporter.mjs).

const FIXTURE = {
  toolwire: {
    server: 'examples/conformance-server/index.mjs',
    client: 'examples/conformance-client/index.mjs',
  },
  sdk: {
    server: 'examples/conformance-server/sdk-baseline.mjs',
    client: 'examples/conformance-client/sdk-baseline.mjs',
  },
};

/**
 * Alpha scenarios toolwire does not pass yet, and why. They are reported XFAIL and do not fail the run;
 * one that starts passing is reported XPASS and fails it, so this list never goes stale.
 */
const EXPECTED_FAILURES = new Map([]);

// ---- options --------------------------------------------------------------------------------------

const USAGE = `usage: node scripts/conformance.mjs [options]
  --alpha            the ${ALPHA.version} suite (2026-07-28) instead of ${STABLE.version}
  --server-only      only the server scenarios (--suite all; with --alpha also --requirements ${STATELESS_REVISION})
  --client-only      only the client scenarios (every one the suite lists, auth/* included)
  --scenario NAME    only this scenario (server or client, by name)
  --url URL          test an already running server instead of starting the fixture
  --sdk-baseline     run against the official-SDK fixtures (checks the harness, not toolwire)
  --keep             keep the results directory even when everything passed
  --verbose          show the suite's own output`;

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      alpha: { type: 'boolean', default: false },
      'server-only': { type: 'boolean', default: false },
      'client-only': { type: 'boolean', default: false },
      scenario: { type: 'string' },
      url: { type: 'string' },
      'sdk-baseline': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (error) {
  console.error(`conformance: ${error.message}\n${USAGE}`);
  process.exit(2);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
if (options['server-only'] && options['client-only'])
  usageError('--server-only and --client-only exclude each other');
if (options.url !== undefined && !/^https?:\/\/[^/]+/.test(options.url))
  usageError(`invalid --url ${options.url}`);

const fixture = options['sdk-baseline'] ? FIXTURE.sdk : FIXTURE.toolwire;
const SUITE = options.alpha ? ALPHA : STABLE;

function usageError(message) {
  console.error(`conformance: ${message}\n${USAGE}`);
  process.exit(2);
}

// ---- child processes: always stopped, also on failure and Ctrl-C --------------------------------

/** Where the suite writes its results (a fresh temporary directory per run). */
let outDir;

process.on('exit', () => {
  for (const child of children) killGroup(child, 'SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    console.error(`\nconformance: ${signal}, stopping`);
    for (const child of children) killGroup(child, 'SIGTERM');
    if (outDir !== undefined && !options.keep) fs.rmSync(outDir, { recursive: true, force: true });
    process.exit(130);
  });
}

// ---- main ---------------------------------------------------------------------------------------

ensureInstalled();
const reporter = new Reporter(options.alpha, EXPECTED_FAILURES);
const { results } = reporter;
const runner = new SuiteRunner({ options, entry: suiteEntry(SUITE), fixture, reporter });

// Which side --scenario names: the client scenarios the suite lists.
const clientListed = runner.listScenarios(['--client'])?.client ?? process.exit(2);
const scenarioIsClient =
  options.scenario !== undefined &&
  (clientListed.some((entry) => entry.name === options.scenario) || options.scenario.startsWith('auth/'));
const runServer = !options['client-only'] && (options.scenario === undefined || !scenarioIsClient);
const runClient = !options['server-only'] && (options.scenario === undefined || scenarioIsClient);
if (!runServer && !runClient)
  usageError(`--scenario ${options.scenario} is excluded by --server-only/--client-only`);
let clientPlan = clientRuns(clientListed, options.alpha);
if (options.scenario !== undefined) {
  const chosen = clientPlan.filter((run) => run.scenario === options.scenario);
  clientPlan = chosen.length > 0 ? chosen : [{ scenario: options.scenario, version: undefined }];
}

const usesToolwire = !options['sdk-baseline'] && ((runServer && options.url === undefined) || runClient);
if (usesToolwire && !fs.existsSync(path.join(ROOT, 'dist', 'index.js'))) {
  console.error('conformance: dist/ is missing: build toolwire first (npm run build)');
  process.exit(2);
}

outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolwire-conformance-'));
const started = Date.now();
console.log(
  `conformance: @modelcontextprotocol/conformance ${SUITE.version} on node ${suiteNodeVersion()}` +
    (options['sdk-baseline'] ? ' (SDK baseline: the official SDK under test, not toolwire)' : ''),
);

let fixtureServer;
try {
  if (runServer) {
    let url = options.url;
    if (url === undefined) {
      try {
        fixtureServer = await startFixture(fixture.server, path.join(outDir, 'fixture-server.log'));
        url = fixtureServer.url;
      } catch (error) {
        reporter.report('server', '(fixture)', {
          ok: false,
          problems: [error.message.split('\n').join(' / ')],
        });
      }
    }
    if (url !== undefined) {
      for (const pass of serverPasses(options.alpha)) {
        console.log(`conformance: server scenarios (${pass.run.join(' ')}) against ${url}`);
        if (!(await runner.serverScenarios(url, outDir, pass)))
          reporter.report(pass.label, '(suite)', { ok: false, problems: ['no run'] });
      }
    }
    const crashed = fixtureServer?.child.exitCode ?? fixtureServer?.child.signalCode;
    if (crashed !== undefined && crashed !== null) {
      const log = path.join(outDir, 'fixture-server.log');
      reporter.report('server', '(fixture)', {
        ok: false,
        problems: [`exited during the run (${crashed}); see ${log}`],
      });
    }
  }
} finally {
  if (fixtureServer) {
    await stop(fixtureServer.child);
    await new Promise((resolve) => fixtureServer.log.end(resolve));
  }
}
if (runClient) {
  console.log(`conformance: client scenarios, one at a time (${fixture.client})`);
  await runner.clientScenarios(outDir, clientPlan);
}

const skipped = results.filter((result) => result.skipped).length;
const expected = results.filter((result) => result.xfail).length;
const passed = results.filter((result) => result.ok && !result.skipped).length;
const failed = results.length - passed - skipped - expected;
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (failed === 0 && !options.keep) fs.rmSync(outDir, { recursive: true, force: true });
else console.log(`conformance: results and logs in ${outDir} (${seconds} s)`);
console.log(
  `conformance: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}` +
    (expected > 0 ? `, ${expected} expected failures (not implemented: see EXPECTED_FAILURES)` : ''),
);
process.exit(failed === 0 ? 0 : 1);
