#!/usr/bin/env node
// The "prepare" script: npm runs it after `npm install` in a clone, before `npm pack` and `npm publish`,
// and when toolwire is installed from git (npm then installs the dev dependencies in its own clone, runs
// this, and packs the result). The package is dist/ and bin/, so dist/ must exist: it is built here,
// unless it was built from the sources as they are now (scripts/source-digest.mjs; the build writes the
// digest it started from), so that a repeated `npm install` costs nothing. Prints nothing when there is
// nothing to do, one line when it built.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { builtDigest, ROOT, sourceDigest } from './source-digest.mjs';

if (builtDigest() !== sourceDigest()) {
  if (!existsSync(path.join(ROOT, 'node_modules', 'tsdown'))) {
    console.error(
      'toolwire prepare: cannot build dist/: the dev dependencies are not installed (npm install)',
    );
    process.exit(1);
  }
  const started = Date.now();
  const build = spawnSync('npm', ['run', 'build', '--silent'], {
    cwd: ROOT,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (build.status !== 0) {
    console.error(
      `toolwire prepare: the build failed (${build.error?.message ?? `exit code ${build.status}`})`,
    );
    process.exit(1);
  }
  console.log(`toolwire prepare: built dist/ (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
