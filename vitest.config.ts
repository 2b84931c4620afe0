import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The package's public subpaths (package.json "exports", tsdown.config.ts entries) and their sources. */
const ENTRIES: Readonly<Record<string, string>> = {
  index: 'src/index.ts',
  server: 'src/server/index.ts',
  client: 'src/client/index.ts',
  stdio: 'src/transports/stdio/index.ts',
  'in-memory': 'src/transports/in-memory.ts',
  http: 'src/transports/http/index.ts',
  'http-client': 'src/transports/http-client/index.ts',
  redis: 'src/stores/redis.ts',
  gateway: 'src/gateway/index.ts',
};
const source = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

export default defineConfig({
  resolve: {
    // What the tests import in-process is src/, never a stale build: `toolwire/server` (as the examples write
    // it) and a fixture's `../../dist/server.js` both resolve to src/server/index.ts. Processes the tests spawn
    // run dist/, which test/global-setup.ts rebuilds when src/ changed.
    alias: Object.entries(ENTRIES).flatMap(([name, file]) => [
      {
        find: new RegExp(`^toolwire${name === 'index' ? '' : `/${escape(name)}`}$`),
        replacement: source(file),
      },
      { find: new RegExp(`^(?:\\.\\./)+dist/${escape(name)}\\.js$`), replacement: source(file) },
    ]),
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The build of dist/ for the tests that spawn it (and the console the gateway serves); redis-server for the
    // Redis tests and Chromium for the console's browser tests (installed if need be).
    globalSetup: [
      './test/global-setup.ts',
      './test/redis-global-setup.ts',
      './test/chromium-global-setup.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // expect.poll waits for an event (a notification, a child's answer): 1 s by default, too short for a round
    // trip over a child process on a busy 2-core machine.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
