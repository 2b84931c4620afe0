import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleSessions, loginLinkId, SESSION_TTL_MS } from './console-sessions.js';

afterEach(() => vi.useRealTimers());

const cookieOf = (setCookie: string) => setCookie.split(';')[0]!;

describe('ConsoleSessions', () => {
  it('uses a one-time login token once', () => {
    const sessions = new ConsoleSessions('api-token');
    const token = sessions.mintLoginToken();
    expect(sessions.useLoginToken('other')).toBe(false);
    expect(sessions.useLoginToken(token)).toBe(true);
    expect(sessions.useLoginToken(token)).toBe(false);
  });

  it("names a login token, and the link that carries it, by its SHA-256's first 8 hex digits", () => {
    const token = new ConsoleSessions('api-token').mintLoginToken();
    const id = createHash('sha256').update(token).digest('hex').slice(0, 8);
    expect(loginLinkId(token)).toBe(id);
    expect(loginLinkId(`http://127.0.0.1:3000/console/#token=${token}`)).toBe(id);
  });

  it('reads back a cookie it signed, per port, and refuses one tampered with or signed with another key', () => {
    const sessions = new ConsoleSessions('api-token');
    const name = sessions.cookieName('127.0.0.1:4242');
    expect(name).toBe('toolwire_console_4242');
    const set = sessions.startCookie(name, { by: 'alice', canDecide: false }, false);
    expect(set).toMatch(/; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    const cookie = cookieOf(set);
    expect(sessions.read(`other=1; ${cookie}`, name)).toEqual({
      by: 'alice',
      canDecide: false,
      via: 'cookie',
    });
    expect(sessions.read(cookie, 'toolwire_console_1')).toBeUndefined();
    const [payload, signature] = cookie.slice(name.length + 1).split('.');
    const forged = Buffer.from(JSON.stringify({ by: 'alice', d: 1, exp: Date.now() + 1000 })).toString(
      'base64url',
    );
    expect(sessions.read(`${name}=${forged}.${signature}`, name)).toBeUndefined();
    expect(new ConsoleSessions('another-token').read(cookie, name)).toBeUndefined();
    // The same API token after a restart: the session holds.
    expect(new ConsoleSessions('api-token').read(`${name}=${payload}.${signature}`, name)?.by).toBe('alice');
  });

  it('expires a session after 12 hours', () => {
    vi.useFakeTimers();
    const sessions = new ConsoleSessions('api-token');
    const cookie = cookieOf(sessions.startCookie('c', { by: 'bob', canDecide: true }, false));
    vi.advanceTimersByTime(SESSION_TTL_MS - 1);
    expect(sessions.read(cookie, 'c')?.canDecide).toBe(true);
    vi.advanceTimersByTime(1);
    expect(sessions.read(cookie, 'c')).toBeUndefined();
  });
});
