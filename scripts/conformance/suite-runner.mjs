// Runs the conformance suite's CLI (scripts/conformance.mjs): lists its scenarios, runs the server passes
// against a URL and the client scenarios one at a time through the client fixture, and reports each
// scenario from its checks.json.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { checksFile, clientError, findChecks, judge, readChecks } from './checks.mjs';
import { exited, start, stop } from './children.mjs';
import { ROOT, STATELESS_REVISION, SUITE_NODE } from './suites.mjs';

const SERVER_SUITE_TIMEOUT_MS = 20 * 60_000; // a hung request costs the harness client 60 s per scenario
const SERVER_SCENARIO_TIMEOUT_MS = 3 * 60_000;
const CLIENT_TIMEOUT_MS = 30_000; // the suite kills the client after this

/**
 * The server passes: 0.1.16 runs `--suite all`; the alpha also runs the 2026-07-28 requirement set at
 * that revision's wire. Each pass: its label, its folder, its `list` arguments and its run arguments.
 */
export function serverPasses(alpha) {
  const all = { label: 'server', dir: 'server', list: ['--server'], run: ['--suite', 'all'], one: [] };
  if (!alpha) return [all];
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

/**
 * The client runs: `{ scenario, version }`, `version` being the revision to run it at (undefined: the
 * suite's default). 0.1.16: every scenario it lists, at its default. The alpha: every scenario it lists,
 * at the newest handshake-era revision it lists and at 2026-07-28 when it lists that (an extension: the
 * default).
 */
export function clientRuns(listed, alpha) {
  if (!alpha) return listed.map(({ name }) => ({ scenario: name, version: undefined }));
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

export class SuiteRunner {
  /**
   * @param options the command line's options (alpha, scenario, verbose)
   * @param entry the file the suite's Node runs (suiteEntry())
   * @param fixture the fixtures under test (`{ server, client }`)
   * @param reporter where each scenario's outcome goes (reporter.mjs)
   */
  constructor({ options, entry, fixture, reporter }) {
    this.options = options;
    this.entry = entry;
    this.fixture = fixture;
    this.reporter = reporter;
  }

  /** Runs the suite's CLI with the loopback preload; output to `logFile` (and the terminal with --verbose). */
  async runSuite(args, logFile, timeoutMs) {
    const log = fs.createWriteStream(logFile);
    const child = start(SUITE_NODE.command, [...SUITE_NODE.args, this.entry, ...args]);
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk) => {
        log.write(chunk);
        if (this.options.verbose) process.stdout.write(chunk);
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

  /**
   * The scenarios `list` prints: `{ server, client }`, each `[{ name, tags, unscored }]` (`tags`: the
   * revisions it applies to; `unscored`: why a requirement set runs it without scoring it).
   */
  listScenarios(args) {
    const list = spawnSync(SUITE_NODE.command, [...SUITE_NODE.args, this.entry, 'list', ...args], {
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
      console.error(
        `conformance: cannot list the scenarios (${args.join(' ')})\n${list.stdout}${list.stderr}`,
      );
      return undefined;
    }
    return found;
  }

  async serverScenarios(url, outDir, pass) {
    const listed = this.listScenarios(pass.list)?.server;
    if (listed === undefined) return false;
    let expected = listed;
    if (this.options.scenario !== undefined) {
      expected = listed.filter((entry) => entry.name === this.options.scenario);
      if (expected.length === 0) return true; // not in this pass
    }
    const dir = path.join(outDir, pass.dir);
    const scope =
      this.options.scenario === undefined ? pass.run : ['--scenario', this.options.scenario, ...pass.one];
    const timeout =
      this.options.scenario === undefined ? SERVER_SUITE_TIMEOUT_MS : SERVER_SCENARIO_TIMEOUT_MS;
    const logFile = path.join(outDir, `${pass.dir}-suite.log`);
    const run = await this.runSuite(['server', '--url', url, ...scope, '-o', dir], logFile, timeout);
    const found = findChecks(dir);
    let anyFailure = false;
    for (const { name, unscored } of expected) {
      const file = checksFile(found, 'server-', name);
      const outcome = judge(readChecks(file), file ? [] : [`see ${logFile}`]);
      anyFailure ||= !outcome.ok;
      this.reporter.report(pass.label, unscored ? `${name} (not scored: ${unscored})` : name, outcome);
    }
    if (run.timedOut || (run.code !== 0 && !anyFailure)) {
      const why = run.timedOut ? `timed out after ${timeout / 1000} s` : `exited with code ${run.code}`;
      this.reporter.report(pass.label, '(suite)', {
        ok: false,
        problems: [`the suite ${why}; see ${logFile}`],
      });
    }
    return true;
  }

  async clientScenarios(outDir, runs) {
    // The suite splits the command on spaces and appends the server URL; it runs in ROOT.
    const node = /\s/.test(process.execPath) ? 'node' : process.execPath;
    const command = `${node} ${this.fixture.client}`;
    for (const { scenario, version } of runs) {
      const label = version === undefined ? 'client' : `client@${version}`;
      const dir = path.join(outDir, version === undefined ? 'client' : `client-${version}`);
      const logFile = path.join(outDir, `${label.replace('@', '-')}-${scenario.replaceAll('/', '_')}.log`);
      const run = await this.runSuite(
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
      this.reporter.report(this.options.alpha ? label : 'client', scenario, outcome);
    }
  }
}
