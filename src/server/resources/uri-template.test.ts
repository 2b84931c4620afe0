import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UriTemplate } from './uri-template.js';

/**
 * What the matcher replaced: a backtracking `RegExp` (greedy, so each value as long as the rest allows),
 * then decoding, then the one-segment rule. Polynomial in the URI; run here on short URIs only.
 */
function reference(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  const reserved: boolean[] = [];
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let source = '';
  let last = 0;
  for (const found of template.matchAll(/\{(\+?)([^{}]*)\}/g)) {
    source += escape(template.slice(last, found.index)) + (found[1] ? '(.+)' : '([^/]+)');
    names.push(found[2] ?? '');
    reserved.push(found[1] === '+');
    last = found.index + found[0].length;
  }
  const captured = new RegExp(`^${source}${escape(template.slice(last))}$`).exec(uri);
  if (!captured) return undefined;
  const values: Record<string, string> = {};
  for (const [i, name] of names.entries()) {
    let value: string;
    try {
      value = decodeURIComponent(captured[i + 1] ?? '');
    } catch {
      return undefined;
    }
    if (!reserved[i] && (value === '.' || value === '..' || /[/\\\0]/.test(value))) return undefined;
    values[name] = value;
  }
  return values;
}

/** Short strings over an alphabet where literals and values overlap, so URIs split many ways. */
const piece = fc.constantFrom('a', 'b', '.', '-', '/', '%2F', '%2E', '\n', '..');
const text = (maxLength: number) => fc.array(piece, { maxLength }).map((pieces) => pieces.join(''));

/** A value: mostly characters that {name} takes too, and that the literals also hold. */
const value = fc
  .array(fc.constantFrom('a', 'b', '.', '-', '%2E', '/'), { minLength: 1, maxLength: 4 })
  .map((pieces) => pieces.join(''));

/** A template, and a URI: mostly the template's literals around random values (so it often matches). */
const cases = fc
  .tuple(
    text(3),
    fc.array(fc.record({ plus: fc.boolean(), literal: text(3), value: value }), {
      minLength: 1,
      maxLength: 4,
    }),
    fc.option(text(12), { freq: 4 }),
  )
  .map(([head, parts, noise]) => ({
    template: head + parts.map(({ plus, literal }, i) => `{${plus ? '+' : ''}v${i}}${literal}`).join(''),
    uri: noise ?? head + parts.map(({ value, literal }) => value + literal).join(''),
  }));

describe('UriTemplate', () => {
  it('lists its variables in order', () => {
    expect(new UriTemplate('file:///{dir}/{name}.txt').variables).toEqual(['dir', 'name']);
    expect(new UriTemplate('test://static').variables).toEqual([]);
  });

  it('matches a URI and returns the decoded variable values', () => {
    const template = new UriTemplate('test://template/{id}/data');
    expect(template.match('test://template/42/data')).toEqual({ id: '42' });
    expect(template.match('test://template/a%20b/data')).toEqual({ id: 'a b' });
  });

  it('matches one path segment per variable', () => {
    const template = new UriTemplate('test://template/{id}/data');
    expect(template.match('test://template/1/2/data')).toBeUndefined();
    expect(template.match('test://template//data')).toBeUndefined();
    expect(template.match('test://template/1/data/more')).toBeUndefined();
  });

  it('treats regular-expression characters in the literal parts literally', () => {
    const template = new UriTemplate('db://rows.v1/{id}?(x)');
    expect(template.match('db://rows.v1/7?(x)')).toEqual({ id: '7' });
    expect(template.match('db://rowsXv1/7?(x)')).toBeUndefined();
  });

  it('does not match a value with malformed percent-encoding', () => {
    expect(new UriTemplate('x://{a}').match('x://%E0%A4%A')).toBeUndefined();
  });

  it('matches a template without variables only to itself', () => {
    const template = new UriTemplate('test://static');
    expect(template.match('test://static')).toEqual({});
    expect(template.match('test://static2')).toBeUndefined();
  });

  it('expands values, percent-encoding reserved characters', () => {
    const template = new UriTemplate('file:///{dir}/{name}');
    expect(template.expand({ dir: 'a b', name: 'c/d!' })).toBe('file:///a%20b/c%2Fd%21');
    expect(template.expand({ dir: 'x' })).toBe('file:///x/');
    expect(template.match(template.expand({ dir: 'a b', name: 'é' }))).toEqual({ dir: 'a b', name: 'é' });
  });

  it('tells templates from plain URIs', () => {
    expect(UriTemplate.isTemplate('test://{id}')).toBe(true);
    expect(UriTemplate.isTemplate('test://plain')).toBe(false);
  });

  it('matches slashes with a reserved expansion {+path} and expands it keeping them', () => {
    const template = new UriTemplate('file://{+path}');
    expect(template.match('file:///home/ada/notes%20v2.md')).toEqual({ path: '/home/ada/notes v2.md' });
    expect(template.match('file://')).toBeUndefined();
    expect(template.expand({ path: '/home/ada/notes v2.md' })).toBe('file:///home/ada/notes%20v2.md');
  });

  it.each([
    'x://{#path}',
    'x://{?q}',
    'x://{a,b}',
    'x://{a*}',
    'x://{a:3}',
    'x://{}',
    'x://{a}/{a}',
    'x://{a',
    'x://a}',
  ])('refuses %j, which is neither {name} nor {+name}', (template) => {
    expect(() => new UriTemplate(template)).toThrow(expect.objectContaining({ code: 'INVALID_DEFINITION' }));
  });

  it('splits a URI as the greedy regular expression it replaced did', () => {
    fc.assert(
      fc.property(cases, ({ template, uri }) => {
        expect(new UriTemplate(template).match(uri)).toEqual(reference(template, uri));
      }),
      { seed: 20261127, numRuns: 3000 },
    );
  });

  it('gives the earlier variable the longest value the rest allows', () => {
    expect(new UriTemplate('file:///{name}.{ext}').match('file:///a.tar.gz')).toEqual({
      name: 'a.tar',
      ext: 'gz',
    });
    expect(new UriTemplate('x://{a}{b}{c}').match('x://abcd')).toEqual({ a: 'ab', b: 'c', c: 'd' });
    expect(new UriTemplate('db://{table}-{id}').match('db://a-b-c')).toEqual({ table: 'a-b', id: 'c' });
  });

  it.each([
    ['file:///{name}.{ext}', `file:///${'a.'.repeat(500_000)}/`, undefined],
    [
      'file:///{name}.{ext}',
      `file:///${'a.'.repeat(500_000)}b`,
      { name: 'a.'.repeat(500_000).slice(0, -1), ext: 'b' },
    ],
    ['x://{a}{b}{c}', `x://${'a'.repeat(1_000_000)}/`, undefined],
    ['x://{a}{b}{c}', `x://${'a'.repeat(1_000_000)}`, { a: 'a'.repeat(999_998), b: 'a', c: 'a' }],
    ['db://{table}-{id}', `db://${'-'.repeat(1_000_000)}/`, undefined],
    ['x://{+a}aaaa{+b}aaaa{c}', `x://${'a'.repeat(1_000_000)}`, { a: 'a'.repeat(999_990), b: 'a', c: 'a' }],
  ])('matches %j against an adversarial 1 MB URI in linear time', (template, uri, expected) => {
    // A backtracking RegExp took 45 s on 4,000 characters of the cubic x://{a}{b}{c}, and about
    // 1,000 s on 1 MB of the quadratic ones; the linear matcher takes well under a second.
    const started = performance.now();
    const values = new UriTemplate(template).match(uri);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(values).toEqual(expected);
  });

  it.each([
    'notes://..%2Fsecret.txt',
    'notes://%2E%2E%2Fsecret.txt',
    'notes://%2E%2E',
    'notes://..',
    'notes://.',
    'notes://%2e',
    'notes://a%00b',
    'notes://a%5Cb',
    'notes://a\\b',
    'notes://a%2fb',
  ])('does not let {name} match %j, which is not one path segment once decoded', (uri) => {
    expect(new UriTemplate('notes://{name}').match(uri)).toBeUndefined();
  });

  it('keeps {name} values that merely contain dots, and {+path} values that climb', () => {
    const name = new UriTemplate('notes://{name}');
    expect(name.match('notes://..a')).toEqual({ name: '..a' });
    expect(name.match('notes://a%2Eb')).toEqual({ name: 'a.b' });
    expect(new UriTemplate('file://{+path}').match('file:///a/../b%2F..')).toEqual({ path: '/a/../b/..' });
  });
});
