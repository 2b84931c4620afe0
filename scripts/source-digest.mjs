// The digest of everything the build reads (src/ without its tests, the console, the build and TypeScript configs,
// package.json and the lock file): each file's path and bytes, in a stable order. The build
// (tsdown.config.ts) writes the digest it started from to dist/.source-digest when it succeeds; the tests'
// global setup (test/global-setup.ts) rebuilds dist/ when that no longer matches, so a change to src/ is
// never tested against a stale dist/.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIGEST_FILE = path.join(ROOT, 'dist', '.source-digest');
const INPUTS = ['src', 'console', 'tsdown.config.ts', 'tsconfig.json', 'package.json', 'package-lock.json'];

function files(relative) {
  let entries;
  try {
    entries = readdirSync(path.join(ROOT, relative), { withFileTypes: true });
  } catch {
    return [relative]; // a file, or missing (hashed as absent)
  }
  return entries
    .flatMap((entry) => files(path.join(relative, entry.name)))
    .filter((file) => !file.endsWith('.test.ts'));
}

/** The digest of the build's inputs as they are now. */
export function sourceDigest() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(files).sort()) {
    hash.update(file).update('\0');
    try {
      hash.update(readFileSync(path.join(ROOT, file)));
    } catch {
      hash.update('(absent)');
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The digest dist/ was built from, if it was built by `npm run build`. */
export function builtDigest() {
  try {
    return readFileSync(DIGEST_FILE, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Records `digest` (computed before the build began) as the one dist/ was built from. */
export function writeDigest(digest) {
  writeFileSync(DIGEST_FILE, `${digest}\n`);
}
