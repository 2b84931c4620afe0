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
// gives it on Node 20 (>= 20.18.1, what its dependencies ask; see suiteEntry()). On an older Node 20,
// `node@22` (≈52 MB to download, ≈185 MB on disk) is installed into .conformance/node22/ and runs the
// suite. toolwire always runs on the host's Node. Every listener of the suite is kept on 127.0.0.1, and
// `localhost` means 127.0.0.1, by preloading scripts/conformance/loopback-only.cjs.
// Exits 1 when a server scenario has a FAILURE or a WARNING (the suite itself exits 0 on warnings, so
// the checks.json files are read) or a client scenario fails; 2 when the harness cannot run.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HERE = path.join(ROOT, 'scripts', 'conformance');
/** Both suites, pinned by scripts/conformance/package.json (and its lock file) under two aliases. */
const MANIFEST = JSON.parse(fs.readFileSync(path.join(HERE, 'package.json'), 'utf8'));
const suite = (alias) => ({ alias, version: MANIFEST.dependencies[alias].split('@').at(-1) });
const STABLE = suite('conformance-stable');
const ALPHA = suite('conformance-alpha');
const STATELESS_REVISION = '2026-07-28';
/** Where the suites are installed (`npm ci` with that manifest and lock file). */
const INSTALL_DIR = path.join(ROOT, '.conformance');
/** Where `node@22` is installed when the host's Node cannot run the suite. */
const NODE22_DIR = path.join(INSTALL_DIR, 'node22');
const PRELOAD = path.join(HERE, 'loopback-only.cjs');
/** The `globSync` the suite's bundle gets on a Node before 22 (see suiteEntry()). */
const GLOB_SYNC = path.join(HERE, 'glob-sync.mjs');
/** The oldest Node the suite's dependencies run on (undici 7); an older one runs it on `node@22`. */
const SUITE_MIN_NODE = [20, 18, 1];

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
const SUITE_CLI = path.join(INSTALL_DIR, 'node_modules', SUITE.alias, 'dist', 'index.js');
const NODE22 = path.join(
  NODE22_DIR,
  'node_modules',
  '.bin',
  process.platform === 'win32' ? 'node.cmd' : 'node',
);
/** Whether the host's Node can run the suite (else `node@22` from the registry does). */
const hostRunsSuite = (() => {
  const [major = 0, minor = 0, patch = 0] = process.versions.node.split('.').map(Number);
  const [needMajor, needMinor, needPatch] = SUITE_MIN_NODE;
  if (major !== needMajor) return major > needMajor;
  return minor !== needMinor ? minor > needMinor : patch >= needPatch;
})();
/** The suite's Node and the arguments before the suite's CLI: the loopback preload. */
const SUITE_NODE = { command: hostRunsSuite ? process.execPath : NODE22, args: ['--require', PRELOAD] };
/** The file the suite's Node runs (suiteEntry(), once the suite is installed). */
let SUITE_ENTRY = SUITE_CLI;

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

function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function suiteVersion({ alias }) {
  const manifest = readText(path.join(INSTALL_DIR, 'node_modules', alias, 'package.json'));
  return manifest === undefined ? undefined : JSON.parse(manifest).version;
}

function suiteNodeVersion() {
  const result = spawnSync(SUITE_NODE.command, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function npm(args, cwd) {
  const result = spawnSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel', 'error'], {
    cwd,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (result.status === 0) return true;
  process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
  if (result.error) console.error(result.error.message);
  return false;
}

const LOCK = 'package-lock.json';

/**
 * Whether .conformance/ holds what scripts/conformance/'s lock file pins: the same lock file, and the
 * hidden lock file npm writes into node_modules when an install completes (npm ci starts by removing
 * node_modules, so an interrupted install has none).
 */
function suitesInstalled() {
  return (
    readText(path.join(INSTALL_DIR, LOCK)) === readText(path.join(HERE, LOCK)) &&
    fs.existsSync(path.join(INSTALL_DIR, 'node_modules', '.package-lock.json')) &&
    [STABLE, ALPHA].every((entry) => suiteVersion(entry) === entry.version)
  );
}

/**
 * Installs both suites into .conformance/ with `npm ci` from the committed lock file (≈6 MB of tarballs
 * and no registry metadata) once, and `node@22` beside them when the host's Node cannot run the suite.
 */
function ensureInstalled() {
  if (!suitesInstalled()) {
    console.log(
      `conformance: installing the suites ${STABLE.version} and ${ALPHA.version} into .conformance/ (once)`,
    );
    // What earlier versions of this script left there (node@22 and a suite each in .conformance/ and
    // .conformance/alpha/): npm ci replaces node_modules, the rest goes.
    for (const stale of ['alpha', LOCK, 'package.json'])
      fs.rmSync(path.join(INSTALL_DIR, stale), { recursive: true, force: true });
    fs.mkdirSync(INSTALL_DIR, { recursive: true });
    fs.copyFileSync(path.join(HERE, 'package.json'), path.join(INSTALL_DIR, 'package.json'));
    fs.copyFileSync(path.join(HERE, LOCK), path.join(INSTALL_DIR, LOCK));
    if (!npm(['ci'], INSTALL_DIR) || !suitesInstalled()) {
      const versions = [STABLE, ALPHA].map(
        (entry) => `${entry.version}: ${suiteVersion(entry) ?? 'missing'}`,
      );
      console.error(`conformance: install failed (${versions.join(', ')})`);
      process.exit(2);
    }
  }
  if (!hostRunsSuite && suiteNodeVersion()?.startsWith('v22.') !== true) {
    console.log(
      `conformance: node ${process.versions.node} cannot run the suite: installing node@22 into .conformance/node22/ (once)`,
    );
    fs.mkdirSync(NODE22_DIR, { recursive: true });
    const manifest = {
      private: true,
      description: 'Node 22 for the MCP conformance suite (scripts/conformance.mjs)',
    };
    fs.writeFileSync(path.join(NODE22_DIR, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    if (!npm(['install', 'node@22'], NODE22_DIR) || suiteNodeVersion()?.startsWith('v22.') !== true) {
      console.error(`conformance: installing node@22 failed (node ${suiteNodeVersion() ?? 'missing'})`);
      process.exit(2);
    }
  }
}

/**
 * The suite's CLI for this Node. The bundle asks for Node 22 only for `import { globSync } from 'fs'`,
 * which on Node 20 fails at link time. There a copy of it beside the original (index.node20.js, rewritten
 * each run) takes `globSync` from scripts/conformance/glob-sync.mjs instead; the rest of the bundle and
 * its dependencies run on Node 20 unchanged. (A module.register resolve hook does the same without a
 * copy, but every import of the suite then crosses to the hooks thread: ≈0.5 s more per suite process,
 * ≈25 s more per alpha run.)
 */
function suiteEntry() {
  if (SUITE_NODE.command !== process.execPath || typeof fs.globSync === 'function') return SUITE_CLI;
  const bundle = fs.readFileSync(SUITE_CLI, 'utf8');
  const fsImport = /import\{([^}]*)\}from"fs";/;
  const names = fsImport.exec(bundle)?.[1].split(',') ?? [];
  const globSync = names.find((name) => /^globSync as [\w$]+$/.test(name));
  if (globSync === undefined) {
    console.error(
      `conformance: the suite ${SUITE.version} does not import globSync from "fs" as 0.1.16 and` +
        ' 0.2.0-alpha.12 do: update suiteEntry() in scripts/conformance.mjs',
    );
    process.exit(2);
  }
  const rest = names.filter((name) => name !== globSync);
  const shim = JSON.stringify(pathToFileURL(GLOB_SYNC).href);
  const patched = bundle.replace(
    fsImport,
    () => `import{${rest.join(',')}}from"fs";import{${globSync}}from${shim};`,
  );
  const file = path.join(path.dirname(SUITE_CLI), 'index.node20.js');
  const temporary = `${file}.${process.pid}`;
  fs.writeFileSync(temporary, patched);
  fs.renameSync(temporary, file);
  return file;
}

// ---- running the suite --------------------------------------------------------------------------

/** Runs the suite's CLI with the loopback preload; output to `logFile` (and the terminal with --verbose). */
async function runSuite(args, logFile, timeoutMs) {
  const log = fs.createWriteStream(logFile);
  const child = start(SUITE_NODE.command, [...SUITE_NODE.args, SUITE_ENTRY, ...args]);
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
  const skips = [];
  for (const check of checks) {
    if (check.status in count) count[check.status]++;
    if (check.status === 'FAILURE' || check.status === 'WARNING') {
      problems.push(
        `${check.status === 'WARNING' ? 'warning ' : ''}${check.id}: ${check.errorMessage ?? check.description}`,
      );
    }
    if (check.status === 'SKIPPED')
      skips.push(`skipped ${check.id}: ${check.errorMessage ?? check.description}`);
  }
  return { passed: count.SUCCESS, failed: count.FAILURE, warnings: count.WARNING, problems, skips };
}

const results = [];

/**
 * Alpha scenarios toolwire does not pass yet, and why. They are reported XFAIL and do not fail the run;
 * one that starts passing is reported XPASS and fails it, so this list never goes stale.
 */
const EXPECTED_FAILURES = new Map([]);

function expectedFailure(scenario) {
  if (!options.alpha) return undefined;
  for (const [prefix, why] of EXPECTED_FAILURES) if (scenario.startsWith(prefix)) return why;
  return undefined;
}

/** `outcome.skipped`: nothing was checked (every check SKIPPED): neither a pass nor a failure. */
function report(kind, scenario, outcome) {
  const why = expectedFailure(scenario);
  if (why !== undefined && !outcome.skipped) {
    outcome = outcome.ok
      ? {
          ...outcome,
          ok: false,
          xpass: true,
          problems: [`expected to fail (${why}) but passed: update EXPECTED_FAILURES`],
        }
      : { ...outcome, xfail: true, problems: [why] };
  }
  results.push({
    kind,
    scenario,
    ok: outcome.ok,
    skipped: outcome.skipped === true,
    xfail: outcome.xfail === true,
  });
  const counts =
    outcome.passed === undefined
      ? ''
      : `${outcome.passed} passed, ${outcome.failed} failed${outcome.warnings ? `, ${outcome.warnings} warnings` : ''}`;
  const detail = [counts, ...outcome.problems].filter(Boolean).join(' | ');
  const verdict = outcome.xfail
    ? 'XFAIL'
    : outcome.xpass
      ? 'XPASS'
      : outcome.skipped
        ? 'SKIP'
        : outcome.ok
          ? 'PASS'
          : 'FAIL';
  const line = `${verdict}  ${kind.padEnd(options.alpha ? 17 : 6)}  ${scenario.padEnd(38)}  ${detail}`;
  console.log(line.length > 400 ? `${line.slice(0, 397)}...` : line);
}

function judge(checks, extraProblems = []) {
  if (checks === undefined) return { ok: false, problems: ['no checks.json', ...extraProblems] };
  if (!Array.isArray(checks)) return { ok: false, problems: [checks.error ?? 'checks.json is not an array'] };
  const counts = tally(checks);
  const problems = [...counts.problems, ...extraProblems];
  if (problems.length === 0 && counts.passed === 0 && counts.skips.length > 0)
    return { ...counts, problems: counts.skips.slice(0, 2), ok: true, skipped: true };
  return { ...counts, problems, ok: problems.length === 0 };
}

/**
 * The scenarios `list` prints: `{ server, client }`, each `[{ name, tags, unscored }]` (`tags`: the
 * revisions it applies to; `unscored`: why a requirement set runs it without scoring it).
 */
function listScenarios(args) {
  const list = spawnSync(SUITE_NODE.command, [...SUITE_NODE.args, SUITE_ENTRY, 'list', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const found = { server: [], client: [] };
  let section;
  let reason;
  for (const line of (list.stdout ?? '').split('\n')) {
    if (/^\s*Server scenarios/.test(line)) section = 'server';
    else if (/^\s*Client scenarios/.test(line)) section = 'client';
    else if (/never scored/.test(line)) section = 'unscored';
    else if (section === 'unscored' && /^\s+[a-z-]+ \(\d+\):\s*$/.test(line))
      reason = line.trim().split(' ')[0];
    const match = /^\s+-\s+(\S+)(?:\s+\[([^\]]*)\])?/.exec(line);
    if (!match || section === undefined) continue;
    const tags = match[2] ? match[2].split(',').map((tag) => tag.trim()) : [];
    if (section !== 'unscored') found[section].push({ name: match[1], tags, unscored: undefined });
    else if (tags[0] === 'server' || tags[0] === 'client')
      found[tags[0]].push({ name: match[1], tags: [], unscored: reason });
  }
  if (list.status !== 0 || found.server.length + found.client.length === 0) {
    console.error(`conformance: cannot list the scenarios (${args.join(' ')})\n${list.stdout}${list.stderr}`);
    return undefined;
  }
  return found;
}

/**
 * The server passes: 0.1.16 runs `--suite all`; the alpha also runs the 2026-07-28 requirement set at
 * that revision's wire. Each pass: its label, its folder, its `list` arguments and its run arguments.
 */
function serverPasses() {
  const all = { label: 'server', dir: 'server', list: ['--server'], run: ['--suite', 'all'], one: [] };
  if (!options.alpha) return [all];
  const required = ['--requirements', STATELESS_REVISION];
  return [
    { ...all, dir: 'server-all' },
    {
      label: `server@${STATELESS_REVISION}`,
      dir: `server-${STATELESS_REVISION}`,
      list: ['--server', ...required],
      run: required,
      one: ['--spec-version', STATELESS_REVISION],
    },
  ];
}

async function serverScenarios(url, outDir, pass) {
  const listed = listScenarios(pass.list)?.server;
  if (listed === undefined) return false;
  let expected = listed;
  if (options.scenario !== undefined) {
    expected = listed.filter((entry) => entry.name === options.scenario);
    if (expected.length === 0) return true; // not in this pass
  }
  const dir = path.join(outDir, pass.dir);
  const scope = options.scenario === undefined ? pass.run : ['--scenario', options.scenario, ...pass.one];
  const timeout = options.scenario === undefined ? SERVER_SUITE_TIMEOUT_MS : SERVER_SCENARIO_TIMEOUT_MS;
  const logFile = path.join(outDir, `${pass.dir}-suite.log`);
  const run = await runSuite(['server', '--url', url, ...scope, '-o', dir], logFile, timeout);
  const found = findChecks(dir);
  let anyFailure = false;
  for (const { name, unscored } of expected) {
    const file = checksFile(found, 'server-', name);
    const outcome = judge(readChecks(file), file ? [] : [`see ${logFile}`]);
    anyFailure ||= !outcome.ok;
    report(pass.label, unscored ? `${name} (not scored: ${unscored})` : name, outcome);
  }
  if (run.timedOut || (run.code !== 0 && !anyFailure)) {
    const why = run.timedOut ? `timed out after ${timeout / 1000} s` : `exited with code ${run.code}`;
    report(pass.label, '(suite)', { ok: false, problems: [`the suite ${why}; see ${logFile}`] });
  }
  return true;
}

/**
 * The client runs: `{ scenario, version }`, `version` being the revision to run it at (undefined: the
 * suite's default). 0.1.16: every scenario it lists, at its default. The alpha: every scenario it lists,
 * at the newest handshake-era revision it lists and at 2026-07-28 when it lists that (an extension: the
 * default).
 */
function clientRuns(listed) {
  if (!options.alpha) return listed.map(({ name }) => ({ scenario: name, version: undefined }));
  const runs = [];
  for (const { name, tags } of listed) {
    const dated = tags.filter((tag) => /^\d{4}-\d{2}-\d{2}$/.test(tag)).sort();
    const handshake = dated.filter((tag) => tag < STATELESS_REVISION).at(-1);
    if (dated.length === 0) runs.push({ scenario: name, version: undefined });
    if (handshake !== undefined) runs.push({ scenario: name, version: handshake });
    if (dated.includes(STATELESS_REVISION)) runs.push({ scenario: name, version: STATELESS_REVISION });
  }
  return runs;
}

async function clientScenarios(outDir, runs) {
  // The suite splits the command on spaces and appends the server URL; it runs in ROOT.
  const node = /\s/.test(process.execPath) ? 'node' : process.execPath;
  const command = `${node} ${fixture.client}`;
  for (const { scenario, version } of runs) {
    const label = version === undefined ? 'client' : `client@${version}`;
    const dir = path.join(outDir, version === undefined ? 'client' : `client-${version}`);
    const logFile = path.join(outDir, `${label.replace('@', '-')}-${scenario.replaceAll('/', '_')}.log`);
    const run = await runSuite(
      [
        'client',
        '--command',
        command,
        '--scenario',
        scenario,
        ...(version === undefined ? [] : ['--spec-version', version]),
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
    report(options.alpha ? label : 'client', scenario, outcome);
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

ensureInstalled();
SUITE_ENTRY = suiteEntry();

// Which side --scenario names: the client scenarios the suite lists.
const clientListed = listScenarios(['--client'])?.client ?? process.exit(2);
const scenarioIsClient =
  options.scenario !== undefined &&
  (clientListed.some((entry) => entry.name === options.scenario) || options.scenario.startsWith('auth/'));
const runServer = !options['client-only'] && (options.scenario === undefined || !scenarioIsClient);
const runClient = !options['server-only'] && (options.scenario === undefined || scenarioIsClient);
if (!runServer && !runClient)
  usageError(`--scenario ${options.scenario} is excluded by --server-only/--client-only`);
let clientPlan = clientRuns(clientListed);
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
        fixtureServer = await startFixture(path.join(outDir, 'fixture-server.log'));
        url = fixtureServer.url;
      } catch (error) {
        report('server', '(fixture)', { ok: false, problems: [error.message.split('\n').join(' / ')] });
      }
    }
    if (url !== undefined) {
      for (const pass of serverPasses()) {
        console.log(`conformance: server scenarios (${pass.run.join(' ')}) against ${url}`);
        if (!(await serverScenarios(url, outDir, pass)))
          report(pass.label, '(suite)', { ok: false, problems: ['no run'] });
      }
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
  await clientScenarios(outDir, clientPlan);
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
