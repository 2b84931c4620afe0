import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GATEWAY_CONFIG_SCHEMA } from './config-schema.js';
import { checkConfig, parseConfigText } from './parse-config.js';

function issuesOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return {
      code: (error as { code: string }).code,
      issues: (error as { details: { issues: unknown } }).details.issues,
    };
  }
  throw new Error('expected it to throw');
}

describe('gateway configuration', () => {
  it('accepts stdio and HTTP upstreams with every setting', () => {
    const config = {
      $schema: './node_modules/toolwire/gateway-config.schema.json',
      upstreams: {
        files: { command: 'npx', args: ['toolwire', 'serve'], env: { A: '1' }, cwd: '/tmp', trusted: true },
        web: { url: 'https://example.com/mcp', headers: { 'x-a': 'b' }, bearerEnv: 'WEB_TOKEN', prefix: 'w' },
        notes: {
          url: 'https://notes.example.com/mcp',
          oauth: {
            clientId: 'gw',
            issuer: 'https://auth.notes.example.com',
            clientSecretEnv: 'NOTES_SECRET',
            scope: 'notes:read',
          },
        },
        service: {
          url: 'https://service.example.com/mcp',
          oauth: { grant: 'client_credentials', clientId: 'gw', clientSecretEnv: 'SERVICE_SECRET' },
        },
      },
      separator: '__',
      toolNames: 'llm',
      policy: { rules: [{ upstream: 'files', tool: 'write_*', action: 'ask' }], default: 'deny' },
      approvals: { timeoutMs: 1000, progressIntervalMs: 100 },
      reconnect: { initialDelayMs: 10, maxDelayMs: 100 },
      audit: { maxRecords: 10, file: 'audit.jsonl' },
      parkedCalls: { ttlMs: 1000, max: 0, maxPerCaller: 4 },
    };
    expect(checkConfig(config)).toBe(config);
  });

  it('names the path of every problem', () => {
    expect(
      issuesOf(() =>
        checkConfig({
          upstreams: {
            'bad name': { command: 'x' },
            files: { command: '' },
            web: { url: 'ftp://x', command: 'y' },
          },
          policy: { rules: [{ tool: 'x', action: 'maybe' }] },
        }),
      ),
    ).toMatchObject({
      code: 'INVALID_CONFIG',
      issues: expect.arrayContaining([
        expect.objectContaining({ path: '/upstreams/files/command' }),
        expect.objectContaining({ path: '/upstreams/web/url' }),
        expect.objectContaining({ path: '/upstreams/web', message: expect.stringContaining('command') }),
        expect.objectContaining({ path: '/policy/rules/0/action' }),
      ]),
    });
  });

  it('refuses oauth with bearerEnv, and client credentials without the client', () => {
    expect(
      issuesOf(() =>
        checkConfig({
          upstreams: {
            both: { url: 'https://a.example.com/mcp', bearerEnv: 'T', oauth: {} },
            service: { url: 'https://b.example.com/mcp', oauth: { grant: 'client_credentials' } },
          },
        }),
      ),
    ).toMatchObject({
      code: 'INVALID_CONFIG',
      issues: expect.arrayContaining([
        expect.objectContaining({
          path: '/upstreams/service/oauth',
          message: expect.stringContaining('clientId'),
        }),
      ]),
    });
    expect(
      issuesOf(() =>
        checkConfig({ upstreams: { both: { url: 'https://a.example.com/mcp', bearerEnv: 'T', oauth: {} } } }),
      ),
    ).toMatchObject({
      issues: [{ path: '/upstreams/both/oauth', message: expect.stringContaining('bearerEnv') }],
    });
  });

  it('refuses parkedCalls limits that are not whole numbers in range, naming each path', () => {
    expect(
      issuesOf(() =>
        checkConfig({
          upstreams: {},
          parkedCalls: { ttlMs: 0, max: -1, maxPerCaller: 1.5, maxPerTool: 1 },
        }),
      ),
    ).toEqual({
      code: 'INVALID_CONFIG',
      issues: expect.arrayContaining([
        expect.objectContaining({ path: '/parkedCalls/ttlMs' }),
        expect.objectContaining({ path: '/parkedCalls/max' }),
        expect.objectContaining({ path: '/parkedCalls/maxPerCaller' }),
        expect.objectContaining({ path: '/parkedCalls', message: expect.stringContaining('maxPerTool') }),
      ]),
    });
  });

  it('refuses two upstreams with one prefix', () => {
    expect(
      issuesOf(() => checkConfig({ upstreams: { a: { command: 'x' }, b: { command: 'y', prefix: 'a' } } })),
    ).toEqual({
      code: 'INVALID_CONFIG',
      issues: [
        {
          path: '/upstreams/b/prefix',
          message: 'has the prefix "a" of upstream "a": give one of them another prefix',
        },
      ],
    });
  });

  it('says on which line and column JSON text breaks', () => {
    expect(issuesOf(() => parseConfigText('{\n  "upstreams": {,\n}', 'gateway.json'))).toMatchObject({
      issues: [{ path: '', line: 2, column: 17, message: expect.stringMatching(/^not valid JSON \(/) }],
    });
  });

  it('gives each problem of JSON text the line and column of the value at its path', () => {
    const text = [
      '{',
      '  "upstreams": {',
      '    "a": { "command": 5 },',
      '    "c": { "command": "y", "prefix": "a" }',
      '  },',
      '  "policy": { "rules": [{ "tool": "x", "action": "maybe" }] }',
      '}',
    ].join('\n');
    let message = '';
    const issues = issuesOf(() => {
      try {
        parseConfigText(text, 'gateway.json');
      } catch (error) {
        message = (error as Error).message;
        throw error;
      }
    });
    expect(issues).toEqual({
      code: 'INVALID_CONFIG',
      issues: [
        { path: '/upstreams/a/command', line: 3, column: 23, message: 'must be string' },
        {
          path: '/policy/rules/0/action',
          line: 6,
          column: 50,
          message: 'must be equal to one of the allowed values: "allow", "ask", "deny"',
        },
      ],
    });
    expect(message).toBe(
      'Invalid gateway configuration (gateway.json): /upstreams/a/command (line 3, column 23): must be string; ' +
        '/policy/rules/0/action (line 6, column 50): must be equal to one of the allowed values: "allow", "ask", "deny"',
    );
    // What the schema cannot say is placed too.
    const valid = text.replace('"command": 5', '"command": "x"').replace('"maybe"', '"ask"');
    expect(issuesOf(() => parseConfigText(valid))).toEqual({
      code: 'INVALID_CONFIG',
      issues: [
        {
          path: '/upstreams/c/prefix',
          line: 4,
          column: 38,
          message: 'has the prefix "a" of upstream "a": give one of them another prefix',
        },
      ],
    });
  });

  it('ships its JSON Schema as gateway-config.schema.json, equal to the one it checks with', () => {
    const shipped: unknown = JSON.parse(
      readFileSync(new URL('../../gateway-config.schema.json', import.meta.url), 'utf8'),
    );
    expect(shipped).toEqual(JSON.parse(JSON.stringify(GATEWAY_CONFIG_SCHEMA)));
  });
});
