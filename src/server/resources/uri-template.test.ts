import { describe, expect, it } from 'vitest';
import { UriTemplate } from './uri-template.js';

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
});
