import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchGlob } from './glob.js';

/** The glob's meaning, written out as the textbook table of prefixes: obviously right, quadratic. */
function reference(pattern: string, name: string): boolean {
  // matches[j]: whether the pattern read so far matches the first j characters of the name.
  let matches = Array.from({ length: name.length + 1 }, (_, j) => j === 0);
  for (const char of pattern) {
    const next = Array.from({ length: name.length + 1 }, () => false);
    for (let j = 0; j <= name.length; j++) {
      if (char === '*') next[j] = matches[j]! || (j > 0 && next[j - 1]!);
      else if (j > 0) next[j] = matches[j - 1]! && (char === '?' || char === name[j - 1]);
    }
    matches = next;
  }
  return matches[name.length]!;
}

/** Milliseconds `run` takes. */
function timed(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

describe('matchGlob', () => {
  it('matches `*` as any run (dots included), `?` as one character, the rest literally and whole', () => {
    expect(matchGlob('fs.*', 'fs.read')).toBe(true);
    expect(matchGlob('fs.*', 'fs.dir.list')).toBe(true);
    expect(matchGlob('fs.*', 'fsxread')).toBe(false);
    expect(matchGlob('*_delete', 'file_delete')).toBe(true);
    expect(matchGlob('*_delete', 'file_delete_not')).toBe(false);
    expect(matchGlob('read_?', 'read_a')).toBe(true);
    expect(matchGlob('read_?', 'read_ab')).toBe(false);
    expect(matchGlob('*', '')).toBe(true);
    expect(matchGlob('', '')).toBe(true);
    expect(matchGlob('', 'a')).toBe(false);
    expect(matchGlob('a*b*a', 'aba')).toBe(true);
    expect(matchGlob('a*a', 'a')).toBe(false);
    expect(matchGlob('(x)+[y]$', '(x)+[y]$')).toBe(true);
    expect(matchGlob('a?c', 'a\nc')).toBe(true);
  });

  it('agrees with the reference on small patterns and names', () => {
    const pattern = fc.string({ unit: fc.constantFrom('a', 'b', '-', '*', '?'), maxLength: 8 });
    const name = fc.string({ unit: fc.constantFrom('a', 'b', '-'), maxLength: 12 });
    fc.assert(
      fc.property(pattern, name, (p, n) => matchGlob(p, n) === reference(p, n)),
      { numRuns: 5000 },
    );
  });

  it('matches server-chosen names of 100,000 and 1,000,000 characters in linear time (a regexp took minutes)', () => {
    // As a backtracking regexp, `*-*-*-prod` took 65 s on 4,000 dashes (cubic), `*_*_delete` 17 s on 80,000
    // underscores (quadratic). Both bounds below are far above the linear matcher's few milliseconds.
    const dashes = '-'.repeat(100_000);
    const underscores = '_'.repeat(1_000_000);
    let answers: boolean[] = [];
    const took = timed(() => {
      answers = [
        matchGlob('*-*-*-prod', dashes),
        matchGlob('*_*_delete', underscores),
        matchGlob('*-*-*-*-*-*-*-*-?-x', dashes),
        matchGlob('*?*?*?*?*?*?*?*?*?*?*x', dashes),
        matchGlob('*-*-*-prod', `${dashes}prod`),
      ];
    });
    expect(answers).toEqual([false, false, false, false, true]);
    expect(took).toBeLessThan(1000);
  });
});
