// Vitest's global setup for the Redis tests: finds redis-server, or installs it where it may (root on
// Debian/Ubuntu, as on CI; scripts/redis.mjs), once per run, before any test file starts. The outcome
// reaches the test files through `inject('redisServer')`: the binary's path, or the one line saying what
// to install, which test/_redis.ts fails the Redis tests with (they are never skipped).
import type { TestProject } from 'vitest/node';
import { provisionRedisServer } from '../scripts/redis.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    redisServer: { binary: string } | { error: string };
  }
}

export default function setup(project: TestProject): void {
  const started = Date.now();
  let installed = false;
  try {
    const binary = provisionRedisServer({
      log: (line) => {
        installed = true;
        process.stdout.write(`test setup: ${line} …\n`);
      },
    });
    if (installed)
      process.stdout.write(
        `test setup: redis-server ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
    project.provide('redisServer', { binary });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stdout.write(`test setup: ${message}\n`);
    project.provide('redisServer', { error: message });
  }
}
