// Redaction against corpora: secrets in the formats scanners know must come out redacted (exactly as
// expected: names kept, values gone), ordinary text must come out byte for byte as it went in, and the
// repository's own lockfile (real integrity hashes and registry URLs) too.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ORDINARY_TEXTS } from '../../../test/fixtures/redaction/ordinary.js';
import { SECRET_CASES } from '../../../test/fixtures/redaction/secrets.js';
import { DEFAULT_SECRET_PATTERNS, Redactor, SECRET_NAME, redactText } from './redact.js';

const redactor = new Redactor(DEFAULT_SECRET_PATTERNS, { secretKeys: SECRET_NAME });
const secretCases = SECRET_CASES.map((c) => [c.name, c] as const);

describe('secrets corpus', () => {
  it.each(secretCases)('redacts %s', (_, { input, expected }) => {
    expect(redactText(input)).toBe(expected);
    // The screens (literal hints) let every one of them through to the patterns.
    expect(redactor.text(input)).toBe(expected);
  });

  it.each(secretCases)('redacts %s inside other text, and once is enough', (_, { input, expected }) => {
    expect(redactor.text(`output:\n${input}\n(end)`)).toBe(`output:\n${expected}\n(end)`);
    expect(redactor.text(expected)).toBe(expected);
  });

  it('redacts every case in one text as it redacts each alone', () => {
    const all = SECRET_CASES.map((c) => c.input).join('\n\n');
    expect(redactor.text(all)).toBe(SECRET_CASES.map((c) => c.expected).join('\n\n'));
  });
});

describe('ordinary text corpus', () => {
  it.each(Object.entries(ORDINARY_TEXTS))('leaves %s unchanged', (_, text) => {
    expect(redactText(text)).toBe(text);
    expect(redactor.text(text)).toBe(text);
  });

  it('leaves the lockfile unchanged', () => {
    const lockfile = readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8');
    expect(redactor.text(lockfile)).toBe(lockfile);
  });
});
