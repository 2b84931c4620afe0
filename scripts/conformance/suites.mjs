// The two pinned conformance suites (scripts/conformance.mjs) and the Node that runs them: where they are
// installed, the Node they need, the loopback preload and the globSync shim.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** scripts/conformance/: the suites' manifest and lock file, the preload, the shim. */
export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');
/** Both suites, pinned by scripts/conformance/package.json (and its lock file) under two aliases. */
const MANIFEST = JSON.parse(fs.readFileSync(path.join(HERE, 'package.json'), 'utf8'));
const suite = (alias) => ({ alias, version: MANIFEST.dependencies[alias].split('@').at(-1) });
export const STABLE = suite('conformance-stable');
export const ALPHA = suite('conformance-alpha');
export const STATELESS_REVISION = '2026-07-28';
/** Where the suites are installed (`npm ci` with that manifest and lock file). */
export const INSTALL_DIR = path.join(ROOT, '.conformance');
/** Where `node@22` is installed when the host's Node cannot run the suite. */
export const NODE22_DIR = path.join(INSTALL_DIR, 'node22');
const PRELOAD = path.join(HERE, 'loopback-only.cjs');
/** The `globSync` the suite's bundle gets on a Node before 22 (see suiteEntry()). */
export const GLOB_SYNC = path.join(HERE, 'glob-sync.mjs');
/** The oldest Node the suite's dependencies run on (undici 7); an older one runs it on `node@22`. */
const SUITE_MIN_NODE = [20, 18, 1];

/** The suite's CLI as installed. */
export const suiteCli = (entry) => path.join(INSTALL_DIR, 'node_modules', entry.alias, 'dist', 'index.js');
const NODE22 = path.join(
  NODE22_DIR,
  'node_modules',
  '.bin',
  process.platform === 'win32' ? 'node.cmd' : 'node',
);
/** Whether the host's Node can run the suite (else `node@22` from the registry does). */
export const hostRunsSuite = (() => {
  const [major = 0, minor = 0, patch = 0] = process.versions.node.split('.').map(Number);
  const [needMajor, needMinor, needPatch] = SUITE_MIN_NODE;
  if (major !== needMajor) return major > needMajor;
  return minor !== needMinor ? minor > needMinor : patch >= needPatch;
})();
/** The suite's Node and the arguments before the suite's CLI: the loopback preload. */
export const SUITE_NODE = {
  command: hostRunsSuite ? process.execPath : NODE22,
  args: ['--require', PRELOAD],
};
