#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against toolwire:
// the server fixture (examples/conformance-server) with `--suite all`, then the 4 core client scenarios
// through the client adapter (examples/conformance-client), one at a time. See shared/conformance.md.
//
//   node scripts/conformance.mjs [--server-only | --client-only] [--scenario NAME] [--url URL]
//                                [--sdk-baseline] [--keep] [--verbose]
//
// The suite needs Node 22: `node@22` and the suite are installed into .conformance/ (ignored by git,
// never the project's own node_modules), once; toolwire itself runs on the host's Node. Every listener
// of the suite is kept on 127.0.0.1 by preloading ../shared/tools/loopback-only.cjs.
// Exits 1 when a server scenario has a FAILURE or a WARNING (the suite itself exits 0 on warnings, so
// the checks.json files are read) or a client scenario fails; 2 when the harness cannot run.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SUITE_VERSION = '0.1.16';
const NODE_MAJOR = 22;
const PREFIX = path.join(ROOT, '.conformance');
const SUITE_DIR = path.join(PREFIX, 'node_modules', '@modelcontextprotocol', 'conformance');
const SUITE_CLI = path.join(SUITE_DIR, 'dist', 'index.js');
const NODE22 = path.join(PREFIX, 'node_modules', '.bin', process.platform === 'win32' ? 'node.cmd' : 'node');
const PRELOAD = path.resolve(ROOT, '..', 'shared', 'tools', 'loopback-only.cjs');
const CLIENT_SCENARIOS = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'];

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

const SERVER_SUITE_TIMEOUT_MS = 20 * 60_000; // a hung request costs the harness client 60 s per scenario
const SERVER_SCENARIO_TIMEOUT_MS = 3 * 60_000;
const CLIENT_TIMEOUT_MS = 30_000; // the suite kills the client after this
const SERVER_START_TIMEOUT_MS = 30_000;

// ---- options --------------------------------------------------------------------------------------

const USAGE = `usage: node scripts/conformance.mjs [options]
  --server-only      only the server scenarios (--suite all)
  --client-only      only the client scenarios (${CLIENT_SCENARIOS.join(', ')})
  --scenario NAME    only this scenario (server or client, by name)
  --url URL          test an already running server instead of starting the fixture
  --sdk-baseline     run against the official-SDK fixtures (checks the harness, not toolwire)
  --keep             keep the results directory even when everything passed
  --verbose          show the suite's own output`;

let options;
try {
  ({ values: options } = parseArgs({
    options: {
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

const scenarioIsClient =
  options.scenario !== undefined &&
  (CLIENT_SCENARIOS.includes(options.scenario) || options.scenario.startsWith('auth/'));
const runServer = !options['client-only'] && (options.scenario === undefined || !scenarioIsClient);
const runClient = !options['server-only'] && (options.scenario === undefined || scenarioIsClient);
if (!runServer && !runClient)
  usageError(`--scenario ${options.scenario} is excluded by --server-only/--client-only`);
const fixture = options['sdk-baseline'] ? FIXTURE.sdk : FIXTURE.toolwire;

function usageError(message) {
  console.error(`conformance: ${message}\n${USAGE}`);
  process.exit(2);
}

// ---- child processes: always stopped, also on failure and Ctrl-C --------------------------------

/** Children started with their own process group, killed with it. */
const children = new Set();
/** Where the suite writes its results (a fresh temporary directory per run). */
let outDir;

function killGroup(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

function start(command, args, spawnOptions = {}) {
  const child = spawn(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
    ...spawnOptions,
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

function exited(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 3_000);
  await exited(child);
  clearTimeout(timer);
}

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

// ---- install (cached) ------------------------------------------------------------------------------

function suiteVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(SUITE_DIR, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

function node22Version() {
  const result = spawnSync(NODE22, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function installed() {
  return suiteVersion() === SUITE_VERSION && node22Version()?.startsWith(`v${NODE_MAJOR}.`) === true;
}

function ensureInstalled() {
  if (installed()) return;
  const packages = [`node@${NODE_MAJOR}`, `@modelcontextprotocol/conformance@${SUITE_VERSION}`];
  console.log(`conformance: installing ${packages.join(' and ')} into .conformance/`);
  fs.mkdirSync(PREFIX, { recursive: true });
  const manifest = path.join(PREFIX, 'package.json');
  if (!fs.existsSync(manifest)) {
    const description = 'Node 22 and the MCP conformance suite, installed by scripts/conformance.mjs';
    fs.writeFileSync(manifest, `${JSON.stringify({ private: true, description }, null, 2)}\n`);
  }
  const result = spawnSync(
    'npm',
    ['install', '--prefix', PREFIX, '--no-audit', '--no-fund', '--save-exact', ...packages],
    { cwd: PREFIX, encoding: 'utf8', shell: process.platform === 'win32' },
  );
  if (result.status !== 0 || !installed()) {
    process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    if (result.error) console.error(result.error.message);
    console.error(
      `conformance: install failed (suite ${suiteVersion() ?? 'missing'}, node ${node22Version() ?? 'missing'})`,
    );
    process.exit(2);
  }
}

// ---- running the suite --------------------------------------------------------------------------

/** Runs the suite's CLI on Node 22 with the loopback preload; output to `logFile` (and the terminal with --verbose). */
async function runSuite(args, logFile, timeoutMs) {
  const log = fs.createWriteStream(logFile);
  const child = start(NODE22, ['--require', PRELOAD, SUITE_CLI, ...args]);
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk) => {
      log.write(chunk);
      if (options.verbose) process.stdout.write(chunk);
    });
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void stop(child);
  }, timeoutMs);
  const code = await exited(child);
  clearTimeout(timer);
  await new Promise((resolve) => log.end(resolve));
  return { code: code ?? 1, timedOut };
}

/** Every checks.json under `dir`, keyed by the name of the folder that holds it. */
function findChecks(dir) {
  const found = new Map();
  const walk = (current) => {
    if (!fs.existsSync(current)) return;
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'checks.json') found.set(path.relative(dir, current), full);
    }
  };
  walk(dir);
  return found;
}

/** The checks.json of `scenario`: its folder is `<prefix><scenario>-<ISO timestamp>`. */
function checksFile(found, prefix, scenario) {
  for (const [folder, file] of found) {
    const name = folder.split(path.sep).join('/');
    if (!name.startsWith(`${prefix}${scenario}-`)) continue;
    if (/^\d/.test(name.slice(prefix.length + scenario.length + 1))) return file;
  }
  return undefined;
}

function readChecks(file) {
  if (file === undefined) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    return { error: `unreadable ${file}: ${error.message}` };
  }
}

/** The first line the client printed on stderr (the suite saves it beside checks.json). */
function clientError(file) {
  if (file === undefined) return undefined;
  try {
    const stderr = fs.readFileSync(path.join(path.dirname(file), 'stderr.txt'), 'utf8');
    return stderr.trim().split('\n')[0] || undefined;
  } catch {
    return undefined;
  }
}

function tally(checks) {
  const count = { SUCCESS: 0, FAILURE: 0, WARNING: 0 };
  const problems = [];
  for (const check of checks) {
    if (check.status in count) count[check.status]++;
    if (check.status === 'FAILURE' || check.status === 'WARNING') {
      problems.push(
        `${check.status === 'WARNING' ? 'warning ' : ''}${check.id}: ${check.errorMessage ?? check.description}`,
      );
    }
  }
  return { passed: count.SUCCESS, failed: count.FAILURE, warnings: count.WARNING, problems };
}

const results = [];

function report(kind, scenario, outcome) {
  results.push({ kind, scenario, ok: outcome.ok });
  const counts =
    outcome.passed === undefined
      ? ''
      : `${outcome.passed} passed, ${outcome.failed} failed${outcome.warnings ? `, ${outcome.warnings} warnings` : ''}`;
  const detail = [counts, ...outcome.problems].filter(Boolean).join(' | ');
  const line = `${outcome.ok ? 'PASS' : 'FAIL'}  ${kind.padEnd(6)}  ${scenario.padEnd(38)}  ${detail}`;
  console.log(line.length > 400 ? `${line.slice(0, 397)}...` : line);
}

function judge(checks, extraProblems = []) {
  if (checks === undefined) return { ok: false, problems: ['no checks.json', ...extraProblems] };
  if (!Array.isArray(checks)) return { ok: false, problems: [checks.error ?? 'checks.json is not an array'] };
  const counts = tally(checks);
  const problems = [...counts.problems, ...extraProblems];
  return { ...counts, problems, ok: problems.length === 0 };
}

async function serverScenarios(url, outDir) {
  let expected;
  if (options.scenario !== undefined) {
    expected = [options.scenario];
  } else {
    const list = spawnSync(NODE22, ['--require', PRELOAD, SUITE_CLI, 'list', '--server'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expected = [...(list.stdout ?? '').matchAll(/^\s+-\s+(\S+)/gm)].map((match) => match[1]);
    if (list.status !== 0 || expected.length === 0) {
      console.error(`conformance: cannot list the server scenarios\n${list.stdout}${list.stderr}`);
      return false;
    }
  }
  const dir = path.join(outDir, 'server');
  const scope = options.scenario === undefined ? ['--suite', 'all'] : ['--scenario', options.scenario];
  const timeout = options.scenario === undefined ? SERVER_SUITE_TIMEOUT_MS : SERVER_SCENARIO_TIMEOUT_MS;
  const logFile = path.join(outDir, 'server-suite.log');
  const run = await runSuite(['server', '--url', url, ...scope, '-o', dir], logFile, timeout);
  const found = findChecks(dir);
  let anyFailure = false;
  for (const scenario of expected) {
    const file = checksFile(found, 'server-', scenario);
    const outcome = judge(readChecks(file), file ? [] : [`see ${logFile}`]);
    anyFailure ||= !outcome.ok;
    report('server', scenario, outcome);
  }
  if (run.timedOut || (run.code !== 0 && !anyFailure)) {
    const why = run.timedOut ? `timed out after ${timeout / 1000} s` : `exited with code ${run.code}`;
    report('server', '(suite)', { ok: false, problems: [`the suite ${why}; see ${logFile}`] });
  }
  return true;
}

async function clientScenarios(outDir) {
  const scenarios = options.scenario === undefined ? CLIENT_SCENARIOS : [options.scenario];
  // The suite splits the command on spaces and appends the server URL; it runs in ROOT.
  const node = /\s/.test(process.execPath) ? 'node' : process.execPath;
  const command = `${node} ${fixture.client}`;
  const dir = path.join(outDir, 'client');
  for (const scenario of scenarios) {
    const logFile = path.join(outDir, `client-${scenario.replaceAll('/', '_')}.log`);
    const run = await runSuite(
      [
        'client',
        '--command',
        command,
        '--scenario',
        scenario,
        '--timeout',
        String(CLIENT_TIMEOUT_MS),
        '-o',
        dir,
      ],
      logFile,
      CLIENT_TIMEOUT_MS + 60_000,
    );
    const file = checksFile(findChecks(dir), '', scenario);
    const extra = [];
    if (run.timedOut) extra.push(`the suite timed out; see ${logFile}`);
    else if (run.code !== 0) {
      const stderr = clientError(file);
      if (stderr) extra.push(`client stderr: ${stderr}`);
      extra.push(`the suite exited with code ${run.code}; see ${logFile}`);
    }
    const outcome = judge(readChecks(file), extra);
    report('client', scenario, outcome);
  }
}

// ---- the fixture server -------------------------------------------------------------------------

async function startFixture(logFile) {
  const log = fs.createWriteStream(logFile);
  const child = start(process.execPath, [fixture.server, '--port', '0', '--host', '127.0.0.1']);
  let stdout = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the fixture did not print its URL within ${SERVER_START_TIMEOUT_MS / 1000} s`)),
      SERVER_START_TIMEOUT_MS,
    );
    child.stdout.on('data', (chunk) => {
      log.write(chunk);
      stdout += chunk;
      const match = /listening on (https?:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr.on('data', (chunk) => log.write(chunk));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the fixture exited (${signal ?? `code ${code}`}) before listening`));
    });
  }).catch(async (error) => {
    await stop(child);
    await new Promise((resolve) => log.end(resolve));
    const tail = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-15).join('\n');
    throw new Error(`${error.message}\n${tail}`);
  });
  return { url, child, log };
}

// ---- main ---------------------------------------------------------------------------------------

if (!fs.existsSync(PRELOAD)) {
  console.error(`conformance: ${PRELOAD} is missing (shared/ must sit beside the repository)`);
  process.exit(2);
}
ensureInstalled();

const usesToolwire = !options['sdk-baseline'] && ((runServer && options.url === undefined) || runClient);
if (usesToolwire && !fs.existsSync(path.join(ROOT, 'dist', 'index.js'))) {
  console.error('conformance: dist/ is missing: build toolwire first (npm run build)');
  process.exit(2);
}

outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolwire-conformance-'));
const started = Date.now();
console.log(
  `conformance: @modelcontextprotocol/conformance ${SUITE_VERSION} on node ${node22Version()}` +
    (options['sdk-baseline'] ? ' (SDK baseline: the official SDK under test, not toolwire)' : ''),
);

let fixtureServer;
try {
  if (runServer) {
    let url = options.url;
    if (url === undefined) {
      try {
        fixtureServer = await startFixture(path.join(outDir, 'fixture-server.log'));
        url = fixtureServer.url;
      } catch (error) {
        report('server', '(fixture)', { ok: false, problems: [error.message.split('\n').join(' / ')] });
      }
    }
    if (url !== undefined) {
      console.log(`conformance: server scenarios against ${url}`);
      if (!(await serverScenarios(url, outDir)))
        report('server', '(suite)', { ok: false, problems: ['no run'] });
    }
    const crashed = fixtureServer?.child.exitCode ?? fixtureServer?.child.signalCode;
    if (crashed !== undefined && crashed !== null) {
      const log = path.join(outDir, 'fixture-server.log');
      report('server', '(fixture)', {
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
  await clientScenarios(outDir);
}

const passed = results.filter((result) => result.ok).length;
const failed = results.length - passed;
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (failed === 0 && !options.keep) fs.rmSync(outDir, { recursive: true, force: true });
else console.log(`conformance: results and logs in ${outDir} (${seconds} s)`);
console.log(`conformance: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
