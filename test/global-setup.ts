// Vitest's global setup: the tests that spawn processes (fixture servers, the `toolwire` command) run the
// built package in dist/, so dist/ is rebuilt here whenever the sources changed since it was built
// (scripts/source-digest.mjs) — an unbuilt change to src/ is never tested against a stale dist/. `npm test`
// builds just before vitest, so there it rebuilds nothing. In-process imports need no build: vitest.config.ts
// points the package's public subpaths (and the fixtures' `../../dist/*.js`) at src/.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { builtDigest, ROOT, sourceDigest } from '../scripts/source-digest.mjs';

/** Held while one vitest process builds, so that two runs started together do not build over each other. */
const LOCK = path.join(ROOT, 'node_modules', '.cache', 'toolwire-build.lock');
const LOCK_WAIT_MS = 120_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Takes the build lock (taking over one whose holder died), waiting while a live process holds it. */
async function lock(): Promise<() => void> {
  mkdirSync(path.dirname(LOCK), { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
      return () => rmSync(LOCK, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
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
    if (Date.now() > deadline) throw new Error(`test setup: ${LOCK} held for ${LOCK_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export default async function setup(): Promise<void> {
  if (builtDigest() === sourceDigest()) return;
  const unlock = await lock();
  try {
    if (builtDigest() === sourceDigest()) return; // built by another run while this one waited
    const started = Date.now();
    process.stdout.write('test setup: dist/ was not built from these sources: npm run build …\n');
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0 || builtDigest() === undefined) {
      process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}`);
      throw new Error(
        `test setup: npm run build failed (${build.error?.message ?? `exit ${build.status ?? build.signal}`}); the tests that spawn dist/ cannot run`,
      );
    }
    process.stdout.write(`test setup: built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  } finally {
    unlock();
  }
}
