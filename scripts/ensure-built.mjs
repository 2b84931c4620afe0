// Builds dist/ when it was not built from the sources as they are now (scripts/source-digest.mjs), under a
// lock shared by every run on this machine (node_modules/.cache/toolwire-build.lock, taken over when its
// holder died), so that two runs started together do not build over each other. Used by the tests' global
// setup (test/global-setup.ts), `npm run attack` and `npm run soak`: each runs the built package.
//   node scripts/ensure-built.mjs      # as a command: builds if needed, exit 1 if the build failed
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtDigest, ROOT, sourceDigest } from './source-digest.mjs';

const LOCK = path.join(ROOT, 'node_modules', '.cache', 'toolwire-build.lock');
const LOCK_WAIT_MS = 120_000;

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Takes the build lock (taking over one whose holder died), waiting while a live process holds it. */
async function lock() {
  mkdirSync(path.dirname(LOCK), { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
      return () => rmSync(LOCK, { recursive: true, force: true });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(path.join(LOCK, 'pid'), 'utf8'));
    } catch {
      // being written or removed: look again
    }
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
      rmSync(LOCK, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${LOCK} held for ${LOCK_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Builds dist/ unless it is current; `log` receives the one line said before and after a build. Throws when
 * the build fails (with its output in the message).
 */
export async function ensureBuilt(log = (line) => process.stdout.write(`${line}\n`)) {
  if (builtDigest() === sourceDigest()) return false;
  const unlock = await lock();
  try {
    if (builtDigest() === sourceDigest()) return false; // built by another run while this one waited
    const started = Date.now();
    log('dist/ was not built from these sources: npm run build …');
    const build = spawnSync('npm', ['run', 'build', '--silent'], {
      cwd: ROOT,
      encoding: 'utf8',
      shell: process.platform === 'win32',
    });
    if (build.status !== 0 || builtDigest() === undefined) {
      throw new Error(
        `npm run build failed (${build.error?.message ?? `exit ${build.status ?? build.signal}`})\n${build.stdout ?? ''}${build.stderr ?? ''}`,
      );
    }
    log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return true;
  } finally {
    unlock();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await ensureBuilt();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
