import { describe, expect, it } from 'vitest';
import { authorizationServerMetadataUrls } from './authorization-server.js';
import { protectedResourceMetadataUrls, resourceMatches } from './protected-resource.js';

const hrefs = (urls: URL[]) => urls.map((url) => url.href);

describe('discovery URLs', () => {
  it('looks for resource metadata at the path-aware well-known URL, then the root one (RFC 9728 §3.1)', () => {
    expect(hrefs(protectedResourceMetadataUrls(new URL('https://rs.test/api/mcp')))).toEqual([
      'https://rs.test/.well-known/oauth-protected-resource/api/mcp',
      'https://rs.test/.well-known/oauth-protected-resource',
    ]);
    expect(hrefs(protectedResourceMetadataUrls(new URL('https://rs.test/mcp/?t=1')))).toEqual([
      'https://rs.test/.well-known/oauth-protected-resource/mcp?t=1',
      'https://rs.test/.well-known/oauth-protected-resource',
    ]);
    expect(hrefs(protectedResourceMetadataUrls(new URL('https://rs.test/')))).toEqual([
      'https://rs.test/.well-known/oauth-protected-resource',
    ]);
  });

  it('looks for authorization server metadata in the 2025-11-25 order, path-aware', () => {
    expect(hrefs(authorizationServerMetadataUrls(new URL('https://as.test/tenant1')))).toEqual([
      'https://as.test/.well-known/oauth-authorization-server/tenant1',
      'https://as.test/.well-known/openid-configuration/tenant1',
      'https://as.test/tenant1/.well-known/openid-configuration',
    ]);
    expect(hrefs(authorizationServerMetadataUrls(new URL('https://as.test')))).toEqual([
      'https://as.test/.well-known/oauth-authorization-server',
      'https://as.test/.well-known/openid-configuration',
    ]);
  });

  it('takes resource metadata for the server or a parent of it, on the same origin only', () => {
    const mcp = new URL('https://rs.test/api/mcp');
    expect(resourceMatches('https://rs.test/api/mcp', mcp)).toBe(true);
    expect(resourceMatches('https://rs.test/api/', mcp)).toBe(true);
    expect(resourceMatches('https://rs.test', mcp)).toBe(true);
    expect(resourceMatches('https://RS.test:443/api/mcp', mcp)).toBe(true);
    expect(resourceMatches('https://rs.test/ap', mcp)).toBe(false);
    expect(resourceMatches('https://rs.test/api/mcp/more', mcp)).toBe(false);
    expect(resourceMatches('https://evil.test/api/mcp', mcp)).toBe(false);
    expect(resourceMatches('http://rs.test/api/mcp', mcp)).toBe(false);
    expect(resourceMatches('https://rs.test/api/mcp#x', mcp)).toBe(false);
    expect(resourceMatches('not a url', mcp)).toBe(false);
  });
});
