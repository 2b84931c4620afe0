import { describe, expect, it } from 'vitest';
import { OAuthError } from './oauth-error.js';
import { boundedFetch, checkedUrl, isLoopback } from './oauth-http.js';

describe('OAuth HTTP', () => {
  it('takes HTTPS URLs, and plain HTTP only to this machine unless allowed', () => {
    expect(checkedUrl('https://as.test/x', 'u', 'discovery', false).href).toBe('https://as.test/x');
    for (const local of ['http://localhost:1/x', 'http://127.0.0.1/x', 'http://[::1]:8/x']) {
      expect(isLoopback(checkedUrl(local, 'u', 'discovery', false))).toBe(true);
    }
    expect(() => checkedUrl('http://as.test/x', 'u', 'discovery', false)).toThrow(OAuthError);
    expect(checkedUrl('http://as.test/x', 'u', 'discovery', true).href).toBe('http://as.test/x');
    expect(() => checkedUrl('https://as.test/x#f', 'u', 'discovery', false)).toThrow(/fragment/);
    expect(() => checkedUrl('ftp://as.test/x', 'u', 'discovery', true)).toThrow(/HTTPS/);
    expect(() => checkedUrl(42, 'u', 'discovery', false)).toThrow(/not a URL/);
    expect(() => checkedUrl(`https://as.test/${'a'.repeat(5000)}`, 'u', 'discovery', false)).toThrow(
      /not a URL/,
    );
  });

  it('cuts off an answer larger than the limit, and never follows redirects', async () => {
    const seen: RequestInit[] = [];
    const big = boundedFetch(
      (_input, init) => {
        seen.push(init ?? {});
        return Promise.resolve(new Response('x'.repeat(2048), { status: 200 }));
      },
      1_000,
      1024,
    );
    const response = await big('https://as.test/');
    await expect(response.text()).rejects.toThrow(/larger than 1024 bytes/);
    expect(seen[0]?.redirect).toBe('manual');
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
    const small = boundedFetch(() => Promise.resolve(new Response('{"a":1}')), 1_000, 1024);
    expect(await (await small('https://as.test/')).json()).toEqual({ a: 1 });
  });
});
