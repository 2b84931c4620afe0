import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SECRET_PATTERNS,
  MAX_JSON_DEPTH,
  Redactor,
  SECRET_KEY,
  SECRET_NAME,
  redactJson,
  redactText,
} from './redact.js';

const redact = (text: string) => redactText(text, DEFAULT_SECRET_PATTERNS);

describe('secret redaction', () => {
  it.each([
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----', '[REDACTED]'],
    [
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----',
      '[REDACTED]',
    ],
    ['key AKIAIOSFODNN7EXAMPLE here', 'key [REDACTED] here'],
    ['ghp_' + 'a'.repeat(36), '[REDACTED]'],
    ['github_pat_' + 'B'.repeat(30), '[REDACTED]'],
    ['xoxb-1234567890-abcdef', '[REDACTED]'],
    ['sk-ant-' + 'x'.repeat(30), '[REDACTED]'],
    ['AIza' + 'c'.repeat(35), '[REDACTED]'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.dGhpcyBpcyBhIHNpZw', '[REDACTED]'],
    ['Authorization: Bearer abc123def456ghi', 'Authorization: Bearer [REDACTED]'],
    ['Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic [REDACTED]'],
    ['api_key=abcdef123&x=1', 'api_key=[REDACTED]&x=1'],
    ['DB_PASSWORD="hunter2-hunter2"', 'DB_PASSWORD="[REDACTED]"'],
    ['{"client_secret": "s3cr3t-value"}', '{"client_secret": "[REDACTED]"}'],
  ])('redacts %j', (input, expected) => {
    expect(redact(input)).toBe(expected);
    // The Redactor's screens (literal hints for the default patterns) let every such secret through.
    expect(new Redactor(DEFAULT_SECRET_PATTERNS).text(input)).toBe(expected);
    expect(new Redactor(DEFAULT_SECRET_PATTERNS).text(`some text before ${input}`)).toBe(
      redact(`some text before ${input}`),
    );
  });

  it.each([
    'Bearer authentication is used here',
    'the secretary: Jane Smith',
    'tokens: 1234567',
    'a sketch of AKIA',
    'plain text with no secrets',
  ])('leaves %j alone', (input) => {
    expect(redact(input)).toBe(input);
  });

  it('redacts every string of a JSON value and keeps its shape', () => {
    const value = { note: 'token=abcdefgh', list: ['AKIAIOSFODNN7EXAMPLE', 3], nested: { ok: true } };
    expect(redactJson(value, DEFAULT_SECRET_PATTERNS)).toEqual({
      note: 'token=[REDACTED]',
      list: ['[REDACTED]', 3],
      nested: { ok: true },
    });
    expect(value.list[0]).toBe('AKIAIOSFODNN7EXAMPLE'); // a copy: the input is untouched
  });

  it('replaces whole values under secret-looking keys when asked', () => {
    expect(redactJson({ password: 'x', user: 'ada', apiKey: 'short' }, [], SECRET_KEY)).toEqual({
      password: '[REDACTED]',
      user: 'ada',
      apiKey: '[REDACTED]',
    });
  });

  it('matches custom patterns globally even without the g flag', () => {
    expect(redactText('id-1 id-2', [/id-\d/])).toBe('[REDACTED] [REDACTED]');
  });
});

describe('Redactor (patterns compiled once, screened together)', () => {
  const samples = [
    'key AKIAIOSFODNN7EXAMPLE here',
    'Authorization: Bearer abc123def456ghi and api_key=abcdef123',
    'DB_PASSWORD="hunter2-hunter2"',
    'PASSWORD: hunter2-hunter2',
    'the secretary: Jane Smith',
    'plain text with no secrets',
    'aa-aa xyzzy-xyzzy tag=ID-9',
  ];
  const custom = [
    /(\w{2})-\1/, // a backreference: cannot share an alternation
    /(?<word>xyzzy)-\k<word>/g, // a named group
    /id-\d/i, // other flags
    ...DEFAULT_SECRET_PATTERNS,
  ];

  it.each(samples)('redacts %j exactly as redactText does', (input) => {
    const redactor = new Redactor(custom);
    expect(redactor.text(input)).toBe(redactText(input, custom));
    expect(new Redactor(DEFAULT_SECRET_PATTERNS).text(input)).toBe(redact(input));
  });

  it('finds what each kind of pattern matches', () => {
    const redactor = new Redactor(custom);
    expect(redactor.text('aa-aa')).toBe('[REDACTED]');
    expect(redactor.text('xyzzy-xyzzy')).toBe('[REDACTED]');
    expect(redactor.text('ID-9')).toBe('[REDACTED]');
    expect(redactor.matches('ab-cd')).toBe(false);
  });

  it('copies only what it changes in JSON, and keeps a __proto__ key an own property', () => {
    const redactor = new Redactor(DEFAULT_SECRET_PATTERNS);
    const clean = { a: ['x', { b: 1 }], c: 'plain' };
    expect(redactor.json(clean)).toBe(clean);
    const value = JSON.parse(
      '{"keep":{"n":1},"list":["ok","token=abcdef123"],"__proto__":"AKIAIOSFODNN7EXAMPLE"}',
    );
    const out = redactor.json(value) as Record<string, unknown>;
    expect(out).not.toBe(value);
    expect(out.keep).toBe(value.keep);
    expect(out.list).toEqual(['ok', 'token=[REDACTED]']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('[REDACTED]');
    expect(value.list[1]).toBe('token=abcdef123');
  });

  it('does nothing without patterns', () => {
    expect(new Redactor([]).active).toBe(false);
    expect(new Redactor([]).text('AKIAIOSFODNN7EXAMPLE')).toBe('AKIAIOSFODNN7EXAMPLE');
  });
});

describe('Redactor.json (structuredContent)', () => {
  const redactor = new Redactor(DEFAULT_SECRET_PATTERNS, { secretKeys: SECRET_NAME });
  const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

  it('redacts the values of keys named like a secret, whatever the values look like', () => {
    const value = {
      profile: 'default',
      aws_access_key_id: 'AKIAIOSFODNN7EXAMPLE',
      aws_secret_access_key: AWS_SECRET,
      nested: [{ SecretAccessKey: AWS_SECRET, password: 'hunter2', clientSecret: 'abc', apiKey: 'k' }],
      headers: { Authorization: 'Bearer xyz', cookie: 'a=b' },
    };
    expect(redactor.json(value)).toEqual({
      profile: 'default',
      aws_access_key_id: '[REDACTED]',
      aws_secret_access_key: '[REDACTED]',
      nested: [
        {
          SecretAccessKey: '[REDACTED]',
          password: '[REDACTED]',
          clientSecret: '[REDACTED]',
          apiKey: '[REDACTED]',
        },
      ],
      headers: { Authorization: '[REDACTED]', cookie: '[REDACTED]' },
    });
  });

  it('leaves keys that only look like secret names alone', () => {
    const value = {
      token_type: 'Bearer',
      nextPageToken: 'CiAKGjBpNDd2',
      max_tokens: 4096,
      tokens: ['a', 'b'],
      secretName: 'tls-cert',
      secretary: 'Jane Smith',
      password: '',
      private_key_id: '0123abcd',
    };
    expect(redactor.json(value)).toBe(value);
  });

  it('looks MAX_JSON_DEPTH levels deep and redacts deeper values whole, without recursing further', () => {
    let deep: unknown = 'plain';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let out = redactor.json(deep);
    for (let depth = 0; depth < MAX_JSON_DEPTH; depth++) {
      expect(Array.isArray(out), `depth ${depth}`).toBe(true);
      out = (out as unknown[])[0];
    }
    expect(out).toBe('[REDACTED]');

    let shallow: unknown = 'AKIAIOSFODNN7EXAMPLE';
    for (let i = 0; i < MAX_JSON_DEPTH; i++) shallow = { a: shallow };
    expect(JSON.stringify(redactor.json(shallow))).not.toContain('AKIA');
  });

  it('walks each object once however often it is shared (linear work), and cuts cycles', () => {
    // 2^50 paths through 51 objects: walking every path would never end.
    let visits = 0;
    const count = <T extends object>(target: T): T =>
      new Proxy(target, { ownKeys: (t) => (visits++, Reflect.ownKeys(t)) });
    let shared: unknown = count({ note: 'token=abcdef123', n: 1 });
    for (let i = 0; i < 50; i++) shared = count({ left: shared, right: shared });
    const out = redactor.json(shared) as { left: unknown; right: unknown };
    // Each object's keys read once to walk it, once to copy it (it changed); the root's once more, to see
    // whether it holds any object (a flat value is walked without remembering what it met).
    expect(visits).toBe(2 * 51 + 1);
    expect(out.left).toBe(out.right); // the shared part is copied once, and still shared
    let leaf: unknown = out;
    for (let i = 0; i < 50; i++) leaf = (leaf as { left: unknown }).left;
    expect(leaf).toEqual({ note: 'token=[REDACTED]', n: 1 });

    const cyclic: Record<string, unknown> = { key: 'AKIAIOSFODNN7EXAMPLE' };
    cyclic.self = cyclic;
    expect(redactor.json(cyclic)).toEqual({ key: '[REDACTED]', self: '[REDACTED]' });
  });

  it('redactJson walks the same way', () => {
    let shared: unknown = ['AKIAIOSFODNN7EXAMPLE'];
    for (let i = 0; i < 60; i++) shared = [shared, shared];
    const out = redactJson(shared, DEFAULT_SECRET_PATTERNS) as unknown[];
    expect(out[0]).toBe(out[1]);
  });
});
