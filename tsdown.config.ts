import { defineConfig } from 'tsdown';
import { sourceDigest, writeDigest } from './scripts/source-digest.mjs';

/** The digest of the sources this build started from (see scripts/source-digest.mjs). */
let digest = '';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    server: 'src/server/index.ts',
    client: 'src/client/index.ts',
    stdio: 'src/transports/stdio/index.ts',
    'in-memory': 'src/transports/in-memory.ts',
    http: 'src/transports/http/index.ts',
    'http-client': 'src/transports/http-client/index.ts',
    redis: 'src/stores/redis.ts',
    gateway: 'src/gateway/index.ts',
    cli: 'src/cli/main.ts',
  },
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // No declaration maps: they would point into src/, which the package does not ship.
  dts: { sourcemap: false },
  // The JavaScript's source maps carry their sources (sourcesContent), so they lead back from the package alone.
  sourcemap: true,
  // Comments dropped, every name kept: no mangling, because the mangler also renames private members
  // (`#dispatch` → `#e`) and has no option to keep them, and a stack trace from dist/ should read like the
  // source. Lines stay lines. test/package.test.ts fails on a private name the sources do not have. The
  // price: importing server + stdio + cli ≈61 → ≈71 ms (medians of 15, interleaved, on a loaded 2-core
  // host); dropping the comments saves ≈8 ms of the ≈79 an unminified bundle takes.
  minify: { compress: false, mangle: false, codegen: { removeWhitespace: false } },
  clean: true,
  outExtensions: () => ({ js: '.js', dts: '.d.ts' }),
  // dist/.source-digest: what the tests' global setup compares to decide whether dist/ is current.
  hooks: {
    'build:prepare': () => {
      digest = sourceDigest();
    },
    'build:done': () => writeDigest(digest),
  },
  // ajv is ~100 small CommonJS files: bundled into one chunk it loads in ≈15 ms instead of ≈45 ms, which
  // is a third of a stdio server's cold start (the benchmark measures spawn → first result).
  noExternal: [/^ajv(\/|$)/, 'ajv-formats'],
});
