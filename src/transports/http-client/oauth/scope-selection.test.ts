import { describe, expect, it } from 'vitest';
import { scopeCovers, scopeList, selectScope } from './scope-selection.js';

describe('scope selection', () => {
  it('asks for the challenge scope, else every scope of the resource metadata, else none', () => {
    const base = { offlineAccess: false };
    expect(selectScope({ ...base, challenged: 'a b', resourceScopes: ['c'] })).toBe('a b');
    expect(selectScope({ ...base, resourceScopes: ['c', 'd'] })).toBe('c d');
    expect(selectScope({ ...base, challenged: '  ', resourceScopes: ['c'] })).toBe('c');
    expect(selectScope(base)).toBeUndefined();
  });

  it('keeps what was asked before on re-authorization (SEP-2350), and the application extras', () => {
    expect(selectScope({ offlineAccess: false, previous: 'a', challenged: 'b', extra: 'x a' })).toBe('a b x');
  });

  it('adds offline_access only when the authorization server lists it, and only beside other scopes', () => {
    const listed = ['a', 'offline_access'];
    expect(selectScope({ offlineAccess: true, challenged: 'a', serverScopes: listed })).toBe(
      'a offline_access',
    );
    expect(selectScope({ offlineAccess: true, challenged: 'a', serverScopes: ['a'] })).toBe('a');
    expect(selectScope({ offlineAccess: true, serverScopes: listed })).toBeUndefined();
    expect(selectScope({ offlineAccess: false, challenged: 'a', serverScopes: listed })).toBe('a');
  });

  it('splits on spaces and tabs, drops repeats, and tells whether held scopes cover wanted ones', () => {
    expect(scopeList(' a\tb  a ')).toEqual(['a', 'b']);
    expect(scopeCovers('a b c', 'c a')).toBe(true);
    expect(scopeCovers('a', 'a b')).toBe(false);
    expect(scopeCovers(undefined, undefined)).toBe(true);
  });
});
