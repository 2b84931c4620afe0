import { describe, expect, it } from 'vitest';
import { metadataUrl, protectedResourceMetadata, resourceUrl } from './protected-resource-metadata.js';

describe('metadataUrl (RFC 9728 §3.1 path insertion)', () => {
  it.each([
    ['https://mcp.example.com/mcp', 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'],
    [
      'https://mcp.example.com/a/b/mcp',
      'https://mcp.example.com/.well-known/oauth-protected-resource/a/b/mcp',
    ],
    ['https://mcp.example.com/mcp/', 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp/'],
    ['https://mcp.example.com', 'https://mcp.example.com/.well-known/oauth-protected-resource'],
    ['https://mcp.example.com/', 'https://mcp.example.com/.well-known/oauth-protected-resource'],
    ['http://127.0.0.1:8080/mcp', 'http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp'],
    ['https://h.example/mcp?tenant=a', 'https://h.example/.well-known/oauth-protected-resource/mcp?tenant=a'],
    ['https://h.example/mcp#frag', 'https://h.example/.well-known/oauth-protected-resource/mcp'],
  ])('%s → %s', (resource, url) => {
    expect(metadataUrl(resource)).toBe(url);
  });
});

describe('protectedResourceMetadata', () => {
  it('builds the full document', () => {
    expect(
      protectedResourceMetadata(
        {
          authorizationServers: ['https://auth.example.com'],
          scopesSupported: ['tools:read', 'tools:call'],
          resourceName: 'Example tools',
          resourceDocumentation: 'https://docs.example.com/mcp',
        },
        'https://mcp.example.com/mcp',
      ),
    ).toMatchInlineSnapshot(`
      {
        "authorization_servers": [
          "https://auth.example.com",
        ],
        "bearer_methods_supported": [
          "header",
        ],
        "resource": "https://mcp.example.com/mcp",
        "resource_documentation": "https://docs.example.com/mcp",
        "resource_name": "Example tools",
        "scopes_supported": [
          "tools:read",
          "tools:call",
        ],
      }
    `);
  });

  it('leaves optional fields out', () => {
    expect(protectedResourceMetadata({ authorizationServers: ['https://as'] }, 'https://h/mcp')).toEqual({
      resource: 'https://h/mcp',
      authorization_servers: ['https://as'],
      bearer_methods_supported: ['header'],
    });
  });

  it('takes the resource from the options, else from the request origin and the endpoint', () => {
    const request = new Request('http://localhost:3000/mcp?x=1');
    expect(resourceUrl({}, request, '/mcp')).toBe('http://localhost:3000/mcp');
    expect(resourceUrl({ resource: 'https://mcp.example.com/mcp' }, request, '/mcp')).toBe(
      'https://mcp.example.com/mcp',
    );
  });
});
