// `toolwire serve --http --jwks …`: the demo as an OAuth 2.1 resource server. Tokens from a test issuer
// (a real JWKS over HTTP); every request needs workspace:read, write_file needs workspace:write too.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { ISSUER, startIssuer, type TestIssuer } from './_tokens.js';

const AUDIENCE = 'https://demo.example.test/mcp';
let issuer: TestIssuer;
let root: string;
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  issuer = await startIssuer();
  root = await mkdtemp(join(tmpdir(), 'toolwire-auth-demo-'));
  child = spawn(
    process.execPath,
    [
      'bin/toolwire.mjs',
      'serve',
      '--http',
      '--port',
      '0',
      '--jwks',
      issuer.jwksUrl,
      '--issuer',
      ISSUER,
      '--audience',
      AUDIENCE,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, TOOLWIRE_DEMO_ROOT: root } },
  );
  url = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
});

afterAll(async () => {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  await issuer.close();
  await rm(root, { recursive: true, force: true });
});

async function toolsFor(scope: string): Promise<string[]> {
  const token = await issuer.token('ada', AUDIENCE, { scope });
  const client = new Client({ name: 'cli-auth', version: '1.0.0' });
  await client.connect(
    new StreamableHttpClientTransport({ url, headers: { authorization: `Bearer ${token}` } }),
  );
  try {
    return (await client.listTools()).map((tool) => tool.name).sort();
  } finally {
    await client.close();
  }
}

describe('toolwire serve --http --jwks (the demo with OAuth)', () => {
  it('publishes its metadata and challenges a request without a token', async () => {
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
    expect(await metadata.json()).toMatchObject({
      resource: AUDIENCE,
      authorization_servers: [ISSUER],
      scopes_supported: ['workspace:read', 'workspace:write'],
    });
    const response = await fetch(url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      'resource_metadata="https://demo.example.test/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('lets a reader list without write_file, a writer with it, and refuses a token without workspace:read', async () => {
    expect(await toolsFor('workspace:read')).toEqual([
      'list_files',
      'read_file',
      'search_files',
      'workspace_info',
    ]);
    expect(await toolsFor('workspace:read workspace:write')).toContain('write_file');
    await expect(toolsFor('workspace:write')).rejects.toThrow();
  });

  it('lets `toolwire tools` and `toolwire call` use TOOLWIRE_TOKEN, and explains a refusal (exit 5)', async () => {
    const run = (args: string[], token?: string) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const env = { ...process.env };
        delete env.TOOLWIRE_TOKEN;
        if (token !== undefined) env.TOOLWIRE_TOKEN = token;
        execFile(process.execPath, ['bin/toolwire.mjs', ...args], { env }, (error, stdout, stderr) =>
          resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr }),
        );
      });
    const none = await run(['tools', url]);
    expect(none.code).toBe(5);
    expect(none.stderr).toContain('needs an OAuth access token');
    expect(none.stderr).toContain('https://demo.example.test/.well-known/oauth-protected-resource/mcp');
    const reader = await issuer.token('ada', AUDIENCE, { scope: 'workspace:read' });
    const listed = await run(['tools', url], reader);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('list_files');
    expect(listed.stdout).not.toContain('write_file');
    const write = await run(
      ['call', '--yes', '--tool', 'write_file', url, 'path=a.txt', 'content=hi'],
      reader,
    );
    expect(write.code).toBe(5);
    expect(write.stderr).toContain('insufficient_scope');
    expect(write.stderr).toContain('scopes to ask for: workspace:read workspace:write');
    expect(write.stderr).not.toContain(reader);
  });
});
