// A real `toolwire gateway` behind a TLS terminator, set up from the command line and the configuration file
// alone: `--trust-forwarded-proto` (the console's sign-in with `X-Forwarded-Proto: https` and an https Origin
// passes the cross-site check only with it; with `--allowed-host` too, the public name's own https Origin
// passes the MCP endpoint's and the API's checks without `--allowed-origin`), `--allowed-host` / `"http": { "allowedHosts" }` (a Host not listed
// gets 403 from the API and the MCP endpoint, the loopback names stay), `--allowed-origin` /
// `"allowedOrigins"` (the MCP endpoint's and the API's Origin check); a change of them in the followed file is
// reported and left for a restart; invalid values are usage errors naming the flag or the path. Requests go
// over node:http, which sends the Host header a proxy would.
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './_cli.js';
import {
  PROTOCOL_FIXTURE,
  TOKEN,
  startGateway,
  toolwireUpstream,
  waitForLine,
  writeConfig,
  type RunningGateway,
} from './_gateway.js';

const UPSTREAMS = { fx: toolwireUpstream(PROTOCOL_FIXTURE) };
const PUBLIC = 'gateway.example.com';
const HTTP = {
  allowedHosts: [PUBLIC],
  allowedOrigins: [`https://${PUBLIC}`],
  trustForwardedProto: true,
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request to the gateway at `base`, with exactly these headers (Host among them). */
function send(
  base: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const outgoing = request({ hostname, port, path, method, headers }, (incoming) => {
      let text = '';
      incoming.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      incoming.on('end', () =>
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The console's sign-in (`POST /api/session` with the API token), as a browser behind the terminator sends it. */
function signIn(base: string, headers: Record<string, string>): Promise<Answer> {
  return send(
    base,
    '/api/session',
    {
      'content-type': 'application/json',
      'x-toolwire-console': '1',
      'sec-fetch-site': 'same-origin',
      'x-forwarded-proto': 'https',
      ...headers,
    },
    'POST',
    JSON.stringify({ token: TOKEN }),
  );
}

/** An MCP `initialize` POST with these headers. */
function initialize(base: string, headers: Record<string, string>): Promise<Answer> {
  return send(
    base,
    '/mcp',
    { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    'POST',
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  );
}

const gateways: RunningGateway[] = [];
let plain: RunningGateway;
let trusting: RunningGateway;
let configured: RunningGateway;
let configFile: string;

beforeAll(async () => {
  const bare = writeConfig({ upstreams: UPSTREAMS });
  configFile = writeConfig({ upstreams: UPSTREAMS, http: HTTP });
  [plain, trusting, configured] = await Promise.all([
    startGateway(['--config', bare]),
    startGateway(['--config', bare, '--trust-forwarded-proto', '--allowed-host', PUBLIC]),
    startGateway(['--config', configFile, '--allowed-host', 'flagged.example.org']),
  ]);
  gateways.push(plain, trusting, configured);
});

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
});

describe('toolwire gateway --trust-forwarded-proto', () => {
  it('admits an https Origin with X-Forwarded-Proto: https only with the flag, and then sets a Secure cookie', async () => {
    const host = (gateway: RunningGateway) => new URL(gateway.base).host;
    const without = await signIn(plain.base, { host: host(plain), origin: `https://${host(plain)}` });
    expect(without.status).toBe(403);
    expect(without.body).toContain('Cross-site request refused');
    const trusted = await signIn(trusting.base, {
      host: host(trusting),
      origin: `https://${host(trusting)}`,
    });
    expect(trusted.status).toBe(200);
    expect(String(trusted.headers['set-cookie'])).toMatch(/; Secure/);
    // The browser is on https: its page's http Origin is another's.
    const http = await signIn(trusting.base, { host: host(trusting), origin: trusting.base });
    expect(http.status).toBe(403);
  });

  it('with --allowed-host, admits the public name and its own https Origin without --allowed-origin', async () => {
    const signedIn = await signIn(trusting.base, { host: PUBLIC, origin: `https://${PUBLIC}` });
    expect(signedIn.status).toBe(200);
    expect(String(signedIn.headers['set-cookie'])).toMatch(/; Secure/);
    const mcp = await initialize(trusting.base, { host: PUBLIC, origin: `https://${PUBLIC}` });
    expect(mcp.status).toBe(200);
    // Only that name's origin: another site's, or a subdomain's, is refused on both.
    for (const origin of ['https://evil.example.net', `https://a.${PUBLIC}`]) {
      expect((await signIn(trusting.base, { host: PUBLIC, origin })).status).toBe(403);
      expect((await initialize(trusting.base, { host: PUBLIC, origin })).status).toBe(403);
    }
  });
});

describe('toolwire gateway with "http" in its configuration, and --allowed-host', () => {
  it("answers the public name over the terminator, and the loopback names and the flag's", async () => {
    const signedIn = await signIn(configured.base, { host: PUBLIC, origin: `https://${PUBLIC}` });
    expect(signedIn.status).toBe(200);
    expect(String(signedIn.headers['set-cookie'])).toMatch(/; Secure/);
    const bearer = { authorization: `Bearer ${TOKEN}` };
    for (const host of [new URL(configured.base).host, 'localhost', 'flagged.example.org:443']) {
      expect((await send(configured.base, '/api/approvals', { ...bearer, host })).status).toBe(200);
    }
    const mcp = await initialize(configured.base, { host: PUBLIC, origin: `https://${PUBLIC}` });
    expect(mcp.status).toBe(200);
  });

  it('refuses a Host it was not given, and an Origin not listed, with 403 on the API and the MCP endpoint', async () => {
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const api = await send(configured.base, '/api/approvals', { ...bearer, host: 'evil.example.net' });
    expect(api.status).toBe(403);
    expect(api.body).toContain('Host not allowed: evil.example.net');
    const mcp = await initialize(configured.base, { host: 'evil.example.net' });
    expect(mcp.status).toBe(403);
    // The same names on a gateway not told of them: refused (the check is on by default).
    expect((await send(plain.base, '/api/approvals', { ...bearer, host: PUBLIC })).status).toBe(403);
    const origin = await initialize(configured.base, { host: PUBLIC, origin: 'https://evil.example.net' });
    expect(origin.status).toBe(403);
    const signIn403 = await signIn(configured.base, { host: PUBLIC, origin: 'https://evil.example.net' });
    expect(signIn403.status).toBe(403);
  });

  it('leaves a change of "http" in the followed file for a restart, and says so', async () => {
    writeFileSync(configFile, `${JSON.stringify({ upstreams: UPSTREAMS }, null, 2)}\n`);
    await waitForLine(
      () => configured.stderr(),
      /the http setting changed: it applies at the next start[^\n]*\n[\s\S]*configuration applied/,
      configured.child,
    );
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await send(configured.base, '/api/approvals', { ...bearer, host: PUBLIC })).status).toBe(200);
  });
});

describe('invalid listener settings', () => {
  it('are usage errors naming the flag or the configuration path (exit 2)', async () => {
    const config = writeConfig({ upstreams: UPSTREAMS });
    const origin = await runCli([
      'gateway',
      '--http',
      '--config',
      config,
      '--allowed-origin',
      'https://a.example/',
    ]);
    expect(origin.code).toBe(2);
    expect(origin.stderr).toContain('--allowed-origin must be an origin');
    const host = await runCli(['gateway', '--http', '--config', config, '--allowed-host', 'a b']);
    expect(host.code).toBe(2);
    expect(host.stderr).toContain('--allowed-host must be a Host header');
    const file = writeConfig({
      upstreams: UPSTREAMS,
      http: { allowedHosts: ['a/b'], allowedOrigins: ['ftp://a.example'], trustForwardedProto: 'yes' },
    });
    const invalid = await runCli(['gateway', '--http', '--config', file]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('/http/allowedHosts/0');
    expect(invalid.stderr).toContain('/http/allowedOrigins/0');
    expect(invalid.stderr).toMatch(/\/http\/trustForwardedProto \(line \d+, column 28\): must be boolean\n/);
  });
});
