// Redaction takes time linear in the text: adversarial texts up to the sanitizer's 1 MiB cap, each timed
// at growing sizes. A quadratic pattern shows either as a size that blows the bound (the old lookbehinds
// took ≈12 s on 40 KB of whitespace after "token", ≈1.5 s on 16 KB of newlines after "api_key") or as
// time growing ≈16× for 4× the text, where linear redaction grows ≈4×. Growth is measured in CPU time,
// which a busy machine does not inflate the way it inflates wall time (a process that waits for a core
// burns none); each size is timed three times, interleaved with the other sizes, and the fastest counts.
import { describe, expect, it } from 'vitest';
import { ADVERSARIAL } from '../../../test/fixtures/redaction/adversarial.js';
import { DEFAULT_SECRET_PATTERNS, Redactor, redactText } from './redact.js';
import { SECRET_HINTS } from './secret-patterns.js';

const MiB = 1024 * 1024;
/** No adversarial text may take this long (wall time) at any size; 1 MiB takes tens of ms. */
const BOUND_MS = 1000;
/** CPU time for 4× the text over CPU time for the text: linear ≈4, quadratic ≈16. */
const MAX_GROWTH = 9;
/** Below this a timing is mostly noise: growth is measured against at least this much CPU time. */
const FLOOR_MS = 3;

/** Wall and CPU time of one redaction of `text` (ms). */
function cost(text: string, redact: (text: string) => string): { wall: number; cpu: number } {
  const cpu = process.cpuUsage();
  const start = performance.now();
  redact(text);
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

const redactor = new Redactor(DEFAULT_SECRET_PATTERNS);
const engines: Record<string, (text: string) => string> = {
  redactText: (text) => redactText(text, DEFAULT_SECRET_PATTERNS),
  'Redactor.text': (text) => redactor.text(text),
};

describe('redaction time is linear in the text', () => {
  describe.each(Object.entries(engines))('%s', (_, redact) => {
    it.each(Object.entries(ADVERSARIAL))('%s', (_, make) => {
      // Small sizes first: a quadratic pattern fails there in about a second, before the big ones.
      const sizes = [16 * 1024, 64 * 1024, 256 * 1024, MiB];
      const texts = sizes.map(make);
      const cpu = sizes.map(() => Infinity);
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < sizes.length; i++) {
          const { wall, cpu: used } = cost(texts[i]!, redact);
          expect(wall, `${sizes[i]} characters`).toBeLessThan(BOUND_MS);
          cpu[i] = Math.min(cpu[i]!, used);
        }
      }
      for (let i = 1; i < sizes.length; i++) {
        const growth = cpu[i]! / Math.max(cpu[i - 1]!, FLOOR_MS);
        expect(growth, `${sizes[i - 1]} → ${sizes[i]} characters: ${cpu.join(', ')} ms of CPU`).toBeLessThan(
          MAX_GROWTH,
        );
      }
    });
  });
});

describe('redaction of huge texts', () => {
  // V8 keeps a backtracking entry per repetition of a group or of a run written `x{20,}`; some million
  // of them overflow its stack (a RangeError). No default pattern may do that: each is run over 8 MiB
  // runs after the prefixes that lead into it (a pattern only on the texts its hint finds).
  const prefixes = [
    ...[
      'eyJ',
      'eyJaaaa.eyJ',
      'eyJaaaa.eyJaaaa.',
      '-----BEGIN PRIVATE KEY-----\n',
      'sk-1',
      'sk-ant-',
      'ya29.',
    ],
    ...['token: ', 'token=', 'token: "', "token: '", 'password>', '://', '://a:', 'Bearer ', 'Cookie: '],
    ...['Authorization: ', '--password ', 'curl -u a:', 'aws_secret_access_key=', 'pypi-AgE', 'hf_', 'ghp_'],
    ...['xoxb-', 'hooks.slack.com/services/', 'sk_live_', 'whsec_', 'SG.', 'abc1Q~', 'glpat-'],
  ];
  const run = 'a1'.repeat(4 * MiB);

  it.each(prefixes)('no default pattern overflows V8’s stack on %j + 8 MiB', (prefix) => {
    const text = prefix + run;
    const head = text.slice(0, 64);
    for (const pattern of DEFAULT_SECRET_PATTERNS) {
      const hint = SECRET_HINTS.get(pattern)!;
      if (!new RegExp(hint, pattern.flags.replace('g', '')).test(head)) continue;
      const regex = new RegExp(pattern.source, `${pattern.flags}g`);
      expect(() => {
        while (regex.exec(text) !== null);
      }, pattern.source).not.toThrow();
    }
  });

  it('redacts a whole text a pattern cannot scan (it throws), rather than let it through', () => {
    const overflowing = /hf_[a-z]{30,}/; // a run written {30,}: a RangeError past some 5 MiB
    const text = 'hf_' + 'a'.repeat(16 * MiB);
    expect(() => overflowing.exec(text)).toThrow(RangeError);
    expect(new Redactor([overflowing]).text(text)).toBe('[REDACTED]');
  });
});
