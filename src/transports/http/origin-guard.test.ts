import { describe, expect, it } from 'vitest';
import { OriginGuard } from './origin-guard.js';

describe('OriginGuard', () => {
  it('admits loopback origins by default, and refuses another host', () => {
    const guard = new OriginGuard();
    expect(guard.check('127.0.0.1:3001', 'http://localhost:5173')).toBeUndefined();
    expect(guard.check('127.0.0.1:3001', null)).toBeUndefined();
    expect(guard.check('127.0.0.1:3001', 'https://evil.example.net')).toBe(
      'Origin not allowed: https://evil.example.net',
    );
    expect(guard.check('127.0.0.1:3001', 'null')).toBe('Origin not allowed: null');
    expect(guard.check('evil.example.net', 'http://evil.example.net')).toBe(
      'Host not allowed: evil.example.net',
    );
  });

  it("admits the origin of the request's own allowed Host, in http or https, with or without a default port", () => {
    const guard = new OriginGuard({ allowedHosts: ['gateway.example.com', 'gateway.example.com:8443'] });
    expect(guard.check('gateway.example.com', 'https://gateway.example.com')).toBeUndefined();
    expect(guard.check('Gateway.Example.com', 'HTTP://gateway.example.com')).toBeUndefined();
    expect(guard.check('gateway.example.com:443', 'https://gateway.example.com')).toBeUndefined();
    expect(guard.check('gateway.example.com:8443', 'https://gateway.example.com:8443')).toBeUndefined();
    // Another host, another port, a subdomain, another scheme: another site.
    expect(guard.check('gateway.example.com', 'https://evil.example.net')).toMatch(/^Origin not allowed/);
    expect(guard.check('gateway.example.com:8443', 'https://gateway.example.com')).toMatch(
      /^Origin not allowed/,
    );
    expect(guard.check('gateway.example.com', 'https://a.gateway.example.com')).toMatch(
      /^Origin not allowed/,
    );
    expect(guard.check('gateway.example.com', 'ftp://gateway.example.com')).toMatch(/^Origin not allowed/);
    // The Host is checked first: an Origin naming it does not admit a Host that is not allowed.
    expect(guard.check('evil.example.net', 'https://evil.example.net')).toBe(
      'Host not allowed: evil.example.net',
    );
  });

  it('with allowedOrigins, admits those and the own origin only (no other loopback origin)', () => {
    const guard = new OriginGuard({ allowedOrigins: ['https://console.example.com'] });
    expect(guard.check('127.0.0.1:3001', 'https://console.example.com')).toBeUndefined();
    expect(guard.check('127.0.0.1:3001', 'http://127.0.0.1:3001')).toBeUndefined();
    expect(guard.check('127.0.0.1:3001', 'http://localhost:5173')).toMatch(/^Origin not allowed/);
    expect(guard.check('127.0.0.1:3001', 'https://other.example.com')).toMatch(/^Origin not allowed/);
  });

  it('checks nothing when disabled', () => {
    expect(new OriginGuard({ disabled: true }).check(null, 'https://evil.example.net')).toBeUndefined();
  });
});
