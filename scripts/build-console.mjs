#!/usr/bin/env node
// The web console's build (`npm run build` runs it after tsdown): Vite with console/vite.config.ts, into
// dist/console, which the gateway serves at /console/. Prints one line: the size of what a browser
// downloads, raw and gzipped (the aim is under 150 KB gzipped). When the build fails, dist/ is marked as
// not built (dist/.source-digest removed), so that the tests' setup and `prepare` build again.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { DIGEST_FILE, ROOT } from './source-digest.mjs';

const OUT = path.join(ROOT, 'dist', 'console');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

try {
  const started = Date.now();
  await build({ configFile: path.join(ROOT, 'console', 'vite.config.ts'), logLevel: 'warn' });
  let raw = 0;
  let gzipped = 0;
  for (const file of files(OUT)) {
    const bytes = readFileSync(file);
    raw += bytes.length;
    gzipped += gzipSync(bytes, { level: 9 }).length;
  }
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `console: dist/console, ${kb(raw)} (${kb(gzipped)} gzipped) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
} catch (error) {
  rmSync(DIGEST_FILE, { force: true });
  console.error(`console: the build failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
