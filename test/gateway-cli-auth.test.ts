// `toolwire gateway --http --stateless --json --jwks …`: the gateway's MCP endpoint served without sessions and
// as an OAuth 2.1 resource server (tokens from a test issuer, a real JWKS over HTTP), its decision API
// taking the same tokens from approvers. A real gateway process in front of the toolwire demo.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { runCli } from './_cli.js';
import { BIN, startGateway, type RunningGateway } from './_gateway.js';
import { ISSUER, startIssuer, type TestIssuer } from './_tokens.js';

const AUDIENCE = 'https://gateway.example.test/mcp';
let issuer: TestIssuer;
let gateway: RunningGateway;

beforeAll(async () => {
  issuer = await startIssuer();
  gateway = await startGateway([
    '--stateless',
    '--json',
    '--jwks',
    issuer.jwksUrl,
    '--issuer',
    ISSUER,
    '--audience',
    AUDIENCE,
    '--scope',
    'gateway:use',
    '--default',
    'allow',
    '--upstream',
    'demo',
    '--',
    process.execPath,
    BIN,
    'serve',
  ]);
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await issuer?.close();
});

async function connect(
  token: string,
  protocolVersion?: '2025-11-25',
): Promise<{ client: Client; transport: StreamableHttpClientTransport }> {
  const client = new Client(
    { name: 'gateway-auth', version: '1.0.0' },
    protocolVersion ? { protocolVersion } : {},
  );
  const transport = new StreamableHttpClientTransport({
    url: gateway.url,
    headers: { authorization: `Bearer ${token}` },
  });
  await client.connect(transport);
  return { client, transport };
}

describe('toolwire gateway --http --stateless --jwks', () => {
  it('publishes its metadata and challenges a request without a token', async () => {
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', gateway.url));
    expect(await metadata.json()).toMatchObject({ resource: AUDIENCE, authorization_servers: [ISSUER] });
    const response = await fetch(gateway.url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('serves a token with the scope, without a session; refuses one without the scope', async () => {
    const token = await issuer.token('ada', AUDIENCE, { scope: 'gateway:use' });
    const { client, transport } = await connect(token, '2025-11-25');
    try {
      expect(client.protocolVersion).toBe('2025-11-25');
      expect(transport.sessionId).toBeUndefined();
      const tools = (await client.listTools()).map((tool) => tool.name);
      expect(tools).toContain('demo__read_file');
      const info = await client.callTool('demo__workspace_info', {});
      expect(info.isError).not.toBe(true);
    } finally {
      await client.close();
    }
    // --json: one JSON body per POST, no event stream.
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await response.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(
      0,
    );
    const weak = await issuer.token('bob', AUDIENCE, { scope: 'other' });
    await expect(connect(weak)).rejects.toThrow(/403|insufficient_scope|scope/i);
  });

  it('lets approvers use the decision API with their token, others not', async () => {
    const approver = await issuer.token('ada', AUDIENCE, { scope: 'gateway:use', roles: ['approver'] });
    const plain = await issuer.token('bob', AUDIENCE, { scope: 'gateway:use' });
    const get = (token: string) =>
      fetch(`${gateway.base}/api/approvals`, { headers: { authorization: `Bearer ${token}` } });
    expect((await get(approver)).status).toBe(200);
    expect((await get(plain)).status).toBe(401);
  });

  it('documents --stateless, --json and the JWT flags in --help, and refuses them where they do not apply', async () => {
    const help = await runCli(['gateway', '--help']);
    for (const flag of ['--stateless', '--json', '--jwks URL', '--issuer ISS', '--audience URL', '--scope S'])
      expect(help.stdout).toContain(flag);
    const upstream = ['--upstream', 'web=http://127.0.0.1:9/mcp'];
    const stdio = await runCli(['gateway', '--stdio', '--stateless', ...upstream]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain('--stateless and --json go with --http');
    const noIssuer = await runCli(['gateway', '--http', '--jwks', 'http://127.0.0.1:9/jwks', ...upstream]);
    expect(noIssuer.code).toBe(2);
    expect(noIssuer.stderr).toContain('--jwks needs --issuer');
  });
});
