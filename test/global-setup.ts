// Vitest's global setup: the tests that spawn processes (fixture servers, the `toolwire` command) run the
// built package in dist/, so dist/ is rebuilt here whenever the sources changed since it was built
// (scripts/ensure-built.mjs, under a lock shared by every run) — an unbuilt change to src/ is never tested
// against a stale dist/. `npm test` builds just before vitest, so there it rebuilds nothing. In-process
// imports need no build: vitest.config.ts points the package's public subpaths (and the fixtures'
// `../../dist/*.js`) at src/.
import { ensureBuilt } from '../scripts/ensure-built.mjs';

export default async function setup(): Promise<void> {
  try {
    await ensureBuilt((line) => process.stdout.write(`test setup: ${line}\n`));
  } catch (error) {
    throw new Error(`test setup: ${(error as Error).message}\nthe tests that spawn dist/ cannot run`, {
      cause: error,
    });
  }
}
