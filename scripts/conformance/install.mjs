// Installs the conformance suites (scripts/conformance.mjs) into .conformance/ once, `node@22` beside them
// when the host's Node cannot run them, and gives the suite's CLI for this Node (suiteEntry()).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ALPHA,
  GLOB_SYNC,
  HERE,
  INSTALL_DIR,
  NODE22_DIR,
  STABLE,
  SUITE_NODE,
  hostRunsSuite,
  suiteCli,
} from './suites.mjs';

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

export function suiteNodeVersion() {
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
export function ensureInstalled() {
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
 * The CLI of the suite `SUITE` (STABLE or ALPHA) for this Node. The bundle asks for Node 22 only for `import { globSync } from 'fs'`,
 * which on Node 20 fails at link time. There a copy of it beside the original (index.node20.js, rewritten
 * each run) takes `globSync` from scripts/conformance/glob-sync.mjs instead; the rest of the bundle and
 * its dependencies run on Node 20 unchanged. (A module.register resolve hook does the same without a
 * copy, but every import of the suite then crosses to the hooks thread: ≈0.5 s more per suite process,
 * ≈25 s more per alpha run.)
 */
export function suiteEntry(SUITE) {
  const SUITE_CLI = suiteCli(SUITE);
  if (SUITE_NODE.command !== process.execPath || typeof fs.globSync === 'function') return SUITE_CLI;
  const bundle = fs.readFileSync(SUITE_CLI, 'utf8');
  const fsImport = /import\{([^}]*)\}from"fs";/;
  const names = fsImport.exec(bundle)?.[1].split(',') ?? [];
  const globSync = names.find((name) => /^globSync as [\w$]+$/.test(name));
  if (globSync === undefined) {
    console.error(
      `conformance: the suite ${SUITE.version} does not import globSync from "fs" as 0.1.16 and` +
        ' 0.2.0-alpha.12 do: update suiteEntry() in scripts/conformance/install.mjs',
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
