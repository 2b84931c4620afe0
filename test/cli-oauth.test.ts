// `toolwire login` / `logout` and the commands that use what login kept (issue 21), the real CLI as a
// child process against toolwire's resource server and the test authorization server on 127.0.0.1. The
// test plays the browser: it opens the URL the CLI prints, and follows the redirect to the CLI's loopback
// listener. The tokens land in a 0600 file (in a 0700 directory) of a temporary $TOOLWIRE_OAUTH_FILE.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, REPO, runCli, type CliRun } from './_cli.js';
import { startGateway, writeConfig } from './_gateway.js';
import {
  startAuthorizationServer,
  type RecordedRequest,
  type TestAuthorizationServer,
} from './_authorization-server.js';
import { startProtectedServer, type ProtectedServer } from './_protected-server.js';

let dir: string;
let file: string;
let as: TestAuthorizationServer;
let rs: ProtectedServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolwire-oauth-cli-'));
  file = join(dir, 'config', 'oauth.json');
});
afterEach(async () => {
  await rs?.close();
  await as?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `toolwire login URL`, signing in through its printed URL like a browser would. */
function login(url: string, args: string[] = [], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'login', ...args, url], {
      cwd: REPO,
      env: { ...process.env, TOOLWIRE_OAUTH_FILE: file, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let browsed = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const printed = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(stderr)?.[1];
      if (printed === undefined || browsed) return;
      browsed = true;
      void (async () => {
        const approved = await fetch(printed, { redirect: 'manual' });
        const callback = approved.headers.get('location') ?? '';
        const page = await fetch(callback);
        expect(await page.text()).toContain('Signed in to toolwire.');
      })().catch(reject);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

/** Makes the tokens the token file keeps expired (as if kept long enough ago): the next use refreshes them. */
async function expireKept(): Promise<void> {
  const contents = JSON.parse(await readFile(file, 'utf8')) as {
    servers: Record<string, { tokens?: { expiresAt?: number } }>;
  };
  for (const record of Object.values(contents.servers)) {
    if (record.tokens !== undefined) record.tokens.expiresAt = Date.now() - 1000;
  }
  await writeFile(file, JSON.stringify(contents));
}

/** Runs a command with the test's token file. */
const run = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { env: { TOOLWIRE_OAUTH_FILE: file, ...env } });

/** The client a token request authenticated as (Basic, else its client_id). */
const clientOf = (request: RecordedRequest) => {
  const basic = /^Basic (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
  return basic === undefined
    ? request.body.client_id
    : decodeURIComponent(Buffer.from(basic, 'base64').toString().split(':')[0] ?? '');
};

describe('toolwire login', () => {
  it('signs in through the browser, keeps the tokens privately, and the other commands use them', async () => {
    as = await startAuthorizationServer();
    rs = await startProtectedServer(as, { scopesSupported: ['notes:read'] });
    const signedIn = await login(rs.url);
    expect(signedIn.stderr).toContain('Open this URL in a browser to sign in');
    expect(signedIn.code, signedIn.stderr).toBe(0);
    expect(signedIn.stdout).toMatch(
      new RegExp(`Signed in to ${rs.url} \\(${as.issuer}, scopes: notes:read\\); it lists \\d+ tools`),
    );
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'config'))).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(await readFile(file, 'utf8')) as {
      servers: Record<string, { tokens: unknown }>;
    };
    expect(Object.keys(stored.servers)).toEqual([rs.url]);
    const redirect = as.to('/register')[0]?.body.redirect_uris;
    expect(redirect).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)]);

    const tools = await run(['tools', '--json', rs.url]);
    expect(tools.code, tools.stderr).toBe(0);
    expect((JSON.parse(tools.stdout) as { name: string }[]).map((tool) => tool.name)).toContain('read_notes');
    const call = await run(['call', '--tool', 'read_notes', rs.url]);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('the notes');
    expect(as.to('/authorize')).toHaveLength(1);

    const out = await run(['logout', rs.url]);
    expect(out).toMatchObject({ code: 0, stdout: `Signed out of ${rs.url}.\n` });
    const after = JSON.parse(await readFile(file, 'utf8')) as { servers: object };
    expect(after.servers).toEqual({});
    const refused = await run(['tools', rs.url]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('needs an OAuth access token');
  });

  it('refreshes the stored tokens when they expire, and says to log in again when that fails', async () => {
    as = await startAuthorizationServer();
    rs = await startProtectedServer(as);
    expect((await login(rs.url)).code).toBe(0);
    await expireKept();
    const before = as.to('/token').length;
    const tools = await run(['tools', rs.url]);
    expect(tools.code, tools.stderr).toBe(0);
    const grants = as
      .to('/token')
      .slice(before)
      .map((request) => request.body.grant_type);
    expect(grants.length).toBeGreaterThan(0);
    expect(grants.every((grant) => grant === 'refresh_token')).toBe(true);

    // The authorization server forgets every refresh token: the next command cannot refresh, and asks
    // for a new sign-in instead of starting one.
    as.revokeRefreshTokens();
    await expireKept();
    const stale = await run(['tools', rs.url]);
    expect(stale.code).toBe(5);
    expect(stale.stderr).toContain('the stored sign-in has ended; sign in again:');
    expect(stale.stderr).toContain(`toolwire login ${rs.url}`);
    expect(as.to('/authorize')).toHaveLength(1);
  });

  it.each([
    [
      '--client-id',
      { clients: { 'cli-app': { secret: 'cli-app-secret' } } },
      ['--client-id', 'cli-app'],
      'cli-app',
    ],
    [
      '--client-metadata-url',
      { clientIdMetadataDocuments: true },
      ['--client-metadata-url', 'https://app.example.test/toolwire.json'],
      'https://app.example.test/toolwire.json',
    ],
  ] as const)(
    'refreshes tokens login got with %s as that same client, never registering one (commands and gateway)',
    async (_flag, asOptions, args, clientId) => {
      as = await startAuthorizationServer(asOptions);
      rs = await startProtectedServer(as);
      const env = { TOOLWIRE_CLIENT_SECRET: 'cli-app-secret' };
      const signedIn = await login(rs.url, [...args], env);
      expect(signedIn.code, signedIn.stderr).toBe(0);
      expect(await readFile(file, 'utf8')).not.toContain('cli-app-secret');
      await expireKept();
      const refreshes = (since: number) =>
        as
          .to('/token')
          .slice(since)
          .map((request) => [request.body.grant_type, clientOf(request)]);

      const before = as.to('/token').length;
      const tools = await run(['tools', rs.url], env);
      expect(tools.code, tools.stderr).toBe(0);
      expect(refreshes(before).length).toBeGreaterThan(0);
      expect(refreshes(before)).toEqual(refreshes(before).map(() => ['refresh_token', clientId]));

      await expireKept();
      const beforeGateway = as.to('/token').length;
      const gateway = await startGateway(['--upstream', `notes=${rs.url}`, '--default', 'allow'], {
        TOOLWIRE_OAUTH_FILE: file,
        ...env,
      });
      try {
        const { upstreams } = (await (await gateway.api('/upstreams')).json()) as {
          upstreams: { status: string }[];
        };
        expect(upstreams[0]?.status, gateway.stderr()).toBe('ready');
      } finally {
        await gateway.close();
      }
      expect(refreshes(beforeGateway).length).toBeGreaterThan(0);
      expect(refreshes(beforeGateway)).toEqual(
        refreshes(beforeGateway).map(() => ['refresh_token', clientId]),
      );
      expect(as.to('/register')).toHaveLength(0);
      expect(as.to('/authorize')).toHaveLength(1);
    },
  );

  it('gives the gateway command the tokens it kept: an upstream at that URL connects', async () => {
    as = await startAuthorizationServer();
    rs = await startProtectedServer(as, { scopesSupported: ['notes:read'] });
    expect((await login(rs.url)).code).toBe(0);
    const gateway = await startGateway(['--upstream', `notes=${rs.url}`, '--default', 'allow'], {
      TOOLWIRE_OAUTH_FILE: file,
    });
    try {
      const { upstreams } = (await (await gateway.api('/upstreams')).json()) as {
        upstreams: { name: string; status: string; tools: string[] }[];
      };
      expect(upstreams[0], gateway.stderr()).toMatchObject({ name: 'notes', status: 'ready' });
      expect(upstreams[0]?.tools).toContain('notes__read_notes');
      expect(as.to('/authorize')).toHaveLength(1); // login's only
    } finally {
      await gateway.close();
    }
  });

  it('connects a gateway upstream that waited for a sign-in once toolwire login kept its tokens', async () => {
    as = await startAuthorizationServer();
    rs = await startProtectedServer(as);
    const config = writeConfig({
      upstreams: { notes: { url: rs.url, oauth: {} } },
      reconnect: { initialDelayMs: 50, maxDelayMs: 100 },
    });
    const gateway = await startGateway(['--config', config], { TOOLWIRE_OAUTH_FILE: file });
    try {
      const events = await gateway.events();
      const { upstreams } = (await (await gateway.api('/upstreams')).json()) as {
        upstreams: { status: string }[];
      };
      expect(upstreams[0]?.status, gateway.stderr()).toBe('needs-sign-in');
      expect(gateway.stderr()).toContain('notes: needs-sign-in (sign in to upstream notes');
      expect((await login(rs.url)).code).toBe(0);
      await events.next('upstream.status', (event) => event.upstream === 'notes' && event.status === 'ready');
    } finally {
      await gateway.close();
    }
  });

  it('refuses a bad URL, and says when there was nothing to sign out of', async () => {
    const usage = await run(['login', 'not-a-url']);
    expect(usage.code).toBe(2);
    const none = await run(['logout', 'http://127.0.0.1:9/mcp']);
    expect(none).toMatchObject({ code: 0, stdout: 'Not signed in to http://127.0.0.1:9/mcp.\n' });
  });
});
