// Finding a program the tests need, and installing it from the system's packages where this process may:
// shared by scripts/redis.mjs (redis-server) and scripts/chromium.mjs (a Chromium for the browser tests).
// A program is looked up on PATH and in the usual system directories (which a minimal PATH may lack);
// when it is missing and this is root on Debian or Ubuntu (as on CI), `apt-get install -y
// --no-install-recommends PACKAGE` installs it (after `apt-get update` when the first try fails: a fresh
// image has no package lists, an old one stale lists). Anything else fails with one line saying what to
// install.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';

/** The first of `names` found as an executable on PATH or in the usual system directories, or undefined. */
export function findProgram(names) {
  const dirs = [
    ...(process.env.PATH ?? '').split(path.delimiter),
    ...['/usr/local/bin', '/usr/bin', '/usr/local/sbin', '/usr/sbin'],
  ];
  for (const name of names) {
    for (const dir of dirs) {
      if (!dir) continue;
      const file = path.join(dir, name);
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

function aptGet(args, log) {
  log(`apt-get ${args.join(' ')}`);
  const run = spawnSync('apt-get', args, {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 600_000,
  });
  return {
    ok: run.status === 0,
    output: `${run.stdout ?? ''}${run.stderr ?? ''}${run.error?.message ?? ''}`,
  };
}

function lastLine(output) {
  return output.trim().split('\n').at(-1) ?? '';
}

/**
 * The path of a program (`find()`), installed from the Debian/Ubuntu package `pkg` when it is missing and
 * this process may (root). Throws an Error whose message is `hint` (one line) otherwise.
 */
export function provisionProgram({ find, pkg, hint, log = () => {} }) {
  const found = find();
  if (found) return found;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !existsSync('/etc/debian_version') || !existsSync('/usr/bin/apt-get')) throw new Error(hint);
  const install = ['install', '-y', '--no-install-recommends', pkg];
  let result = aptGet(install, log);
  if (!result.ok) {
    log(`apt-get install failed (${lastLine(result.output)}); updating the package lists`);
    const update = aptGet(['update'], log);
    if (update.ok) result = aptGet(install, log);
  }
  const installed = find();
  if (installed) return installed;
  throw new Error(`apt-get install ${pkg} failed (${lastLine(result.output)}); ${hint}`);
}
