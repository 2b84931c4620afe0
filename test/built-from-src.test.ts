// The processes the tests spawn run dist/: it must be built from the sources under test (test/global-setup.ts
// rebuilds it when they changed), and what the tests import in-process must be src/ itself.
import { describe, expect, it } from 'vitest';
import { builtDigest, sourceDigest } from '../scripts/source-digest.mjs';
import * as fromPackageName from 'toolwire/server';
import * as fromSource from '../src/server/index.js';

describe('the code under test', () => {
  it('spawns dist/ built from exactly the sources in src/', () => {
    expect(builtDigest()).toBe(sourceDigest());
  });

  it('imports src/ in-process when a test or example names the package', () => {
    expect(fromPackageName.Server).toBe(fromSource.Server);
  });
});
