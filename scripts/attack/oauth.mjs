// Attacks on the OAuth client (OAuthClient from dist/, as the client, the gateway's upstreams and `toolwire
// login` use it) from a hostile protected resource and authorization server: one loopback node:http server
// started here plays both (`/mcp` the resource, the rest its metadata, token and registration endpoints),
// each route replaceable. Hostile WWW-Authenticate headers, resource metadata that is elsewhere or for
// another resource, authorization server metadata that is huge, redirected, for another issuer, without
// PKCE or with endpoints off loopback over plain HTTP, junk registrations, token answers of every wrong
// kind, a refresh that always answers an expired token, a 401 after every fresh token, a trickled metadata
// document with the request aborted. The client is the attacked party: each send must end (an answer or an
// OAuthError) within a bound, asking the servers a bounded number of times, and the longest its event loop
// was blocked is the "bystander delay".
import { once } from 'node:events';
import { createServer } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ROOT } from './lib/target.mjs';

// Loaded when the first attack runs: the runner builds dist/ after the families are imported.
let OAuthClient, OAuthError, MemoryOAuthStore;
async function loadClient() {
  ({ OAuthClient, OAuthError, MemoryOAuthStore } = await import(
    pathToFileURL(path.join(ROOT, 'dist', 'http-client.js')).href
  ));
}

/** The longest one send may take before it counts as a hang, in ms. */
const SEND_BOUND_MS = 5_000;

/**
 * A resource and authorization server on one loopback port. `routes[path](req, res, ctx)` replaces the
 * default answer of a path; every request is counted by path in `hits`.
 */
async function startHostile(routes = {}) {
  const hits = {};
  const issued = new Set();
  let origin = '';
  const json = (res, status, body, headers = {}) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(text);
  };
  const defaults = {
    '/.well-known/oauth-protected-resource/mcp': (req, res) =>
      json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] }),
    '/.well-known/oauth-authorization-server': (req, res) => json(res, 200, server.metadata()),
    '/token': (req, res, { body }) => {
      const grant = new URLSearchParams(body).get('grant_type');
      const token = `t${hits['/token']}`;
      issued.add(token);
      json(res, 200, {
        access_token: token,
        token_type: 'Bearer',
        expires_in: 3600,
        ...(grant === 'client_credentials' ? {} : { refresh_token: `r${hits['/token']}` }),
      });
    },
    '/mcp': (req, res) => {
      const presented = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (issued.has(presented)) return json(res, 200, { jsonrpc: '2.0', id: 1, result: {} });
      json(res, 401, { error: 'unauthorized' }, { 'www-authenticate': server.challenge() });
    },
  };
  const http = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', origin).pathname;
    hits[pathname] = (hits[pathname] ?? 0) + 1;
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const route = routes[pathname] ?? defaults[pathname];
      if (route) route(req, res, { body, origin, json, issued, server });
      else json(res, 404, {});
    });
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  origin = `http://127.0.0.1:${http.address().port}`;
  const server = {
    origin,
    mcp: new URL(`${origin}/mcp`),
    hits,
    issued,
    challenge: () => `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    metadata: () => ({
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
      response_types_supported: ['code'],
    }),
    async close() {
      http.closeAllConnections();
      http.close();
      await once(http, 'close');
    },
  };
  return server;
}

const service = (extra = {}) =>
  new OAuthClient({ grant: 'client_credentials', clientId: 'svc', clientSecret: 'secret', ...extra });

/** A person's client whose browser step is never reached in these attacks (it fails the send). */
const person = (extra = {}) =>
  new OAuthClient({
    redirectUrl: 'http://127.0.0.1:9/callback',
    authorize: async () => {
      throw new Error('the browser was opened');
    },
    ...extra,
  });

/** One send through `oauth` to the server's `/mcp`: `{ status }`, `{ error }` or `{ hung }`, and its ms. */
async function send(oauth, server, { signal } = {}) {
  const started = performance.now();
  const sent = oauth.send({
    resource: server.mcp,
    url: server.mcp,
    method: 'POST',
    headers: new Headers({ 'content-type': 'application/json' }),
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    fetch,
    signal,
  });
  let timer;
  const outcome = await Promise.race([
    sent.then(
      async (response) => {
        await response.body?.cancel().catch(() => undefined);
        return { status: response.status };
      },
      (error) => ({ error }),
    ),
    new Promise((resolve) => (timer = setTimeout(() => resolve({ hung: true }), SEND_BOUND_MS))),
  ]);
  clearTimeout(timer);
  return { ...outcome, ms: performance.now() - started };
}

const described = (outcome) =>
  outcome.hung
    ? `no outcome within ${SEND_BOUND_MS / 1000} s`
    : outcome.error
      ? `${outcome.error.name}: ${String(outcome.error.message).slice(0, 160)}`
      : `HTTP ${outcome.status}`;

/** Checks that `outcome` is an OAuthError (at `step`, when given). */
function refused(ctx, what, outcome, step) {
  ctx.check(
    outcome.error instanceof OAuthError && (step === undefined || outcome.error.details?.step === step),
    () => `${what}: expected an OAuthError${step ? ` at ${step}` : ''}, got ${described(outcome)}`,
  );
}

/**
 * 10 MB of JSON starting with `head`, as a Buffer made once before any attack watches the event loop (the
 * hostile servers run in this process: their own work is not the client's).
 */
const tenMegabytes = (() => {
  const cache = new Map();
  return (head) => {
    if (!cache.has(head)) cache.set(head, Buffer.from(`${head}${'x'.repeat(10 * 2 ** 20)}"}`));
    return cache.get(head);
  };
})();

/** An attack whose client's event loop is watched while `body(ctx)` runs (after `prepare()`). */
function clientAttack(name, title, body, prepare = () => undefined) {
  return {
    name,
    title,
    target: false,
    budgetMs: 20_000,
    async run(ctx) {
      await loadClient();
      prepare();
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const before = process.memoryUsage().rss;
      try {
        await body(ctx);
      } finally {
        delay.disable();
        ctx.delayMs = delay.max / 1e6;
        ctx.peakRssMb = Math.max(before, process.memoryUsage().rss) / 2 ** 20;
      }
    },
  };
}

/** Runs `attempt(server)` against a hostile server with `routes`, closing it after. */
async function against(routes, attempt) {
  const server = await startHostile(routes);
  try {
    return await attempt(server);
  } finally {
    await server.close();
  }
}

export default [
  clientAttack(
    'www-authenticate',
    'hostile WWW-Authenticate: 12 KB of parameters, 2,000 challenges, unterminated and escaped quoted strings',
    async (ctx) => {
      const headers = [
        `Bearer ${Array.from({ length: 1500 }, (_, i) => `p${i}=v`).join(', ')}`,
        Array.from({ length: 2000 }, () => 'X').join(', '),
        `Bearer error="${'\\'.repeat(12_000)}`,
        `Bearer realm="${'\\"'.repeat(6000)}`,
        `Bearer ${'a'.repeat(12_000)}`,
        `Bearer error=invalid_token, scope="${'s '.repeat(6000)}"`,
        `Bearer ${'=,'.repeat(6000)}`,
        `Bearer __proto__="x", constructor="y", resource_metadata="javascript:alert(1)"`,
      ];
      for (const header of headers) {
        ctx.tries++;
        const outcome = await against(
          { '/mcp': (req, res, { json }) => json(res, 401, {}, { 'www-authenticate': header }) },
          (server) => send(service(), server),
        );
        ctx.check(
          !outcome.hung && outcome.ms < 2000,
          () => `${header.slice(0, 40)}…: ${described(outcome)} after ${outcome.ms.toFixed(0)} ms`,
        );
      }
    },
  ),
  clientAttack(
    'resource-metadata',
    'resource metadata on another port, at another resource path, for another resource, or not where the 401 says: refused, no token asked',
    async (ctx) => {
      // Another server on another port, whose metadata at /x is for its own /mcp.
      const elsewhere = await startHostile({
        '/.well-known/oauth-protected-resource/x': (req, res, { json, origin }) =>
          json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] }),
      });
      try {
        const cases = [
          ['another port, its own resource', () => elsewhere.origin, () => `${elsewhere.origin}/mcp`],
          ['another resource path', (s) => s.origin, (s) => `${s.origin}/other/mcp`],
          ['a sibling with the same prefix', (s) => s.origin, (s) => `${s.origin}/mcp-admin`],
          ['another scheme', (s) => s.origin, (s) => s.origin.replace('http:', 'https:') + '/mcp'],
          ['another host name', (s) => s.origin, (s) => s.origin.replace('127.0.0.1', 'localhost') + '/mcp'],
          ['a parent with a fragment', (s) => s.origin, (s) => `${s.origin}/#mcp`],
        ];
        for (const [what, metadataHost, resourceOf] of cases) {
          ctx.tries++;
          await against(
            {
              '/mcp': (req, res, { json, origin }) =>
                json(
                  res,
                  401,
                  {},
                  {
                    'www-authenticate': `Bearer resource_metadata="${metadataHost({ origin })}/.well-known/oauth-protected-resource/x"`,
                  },
                ),
              '/.well-known/oauth-protected-resource/x': (req, res, { json, origin }) =>
                json(res, 200, { resource: resourceOf({ origin }), authorization_servers: [origin] }),
              '/.well-known/oauth-protected-resource/mcp': (req, res, { json }) => json(res, 404, {}),
              '/.well-known/oauth-protected-resource': (req, res, { json }) => json(res, 404, {}),
            },
            async (server) => {
              const outcome = await send(service(), server);
              refused(ctx, what, outcome, 'discovery');
              ctx.check(
                !server.hits['/token'] && !elsewhere.hits['/token'],
                `${what}: a token was asked for`,
              );
            },
          );
        }
        // No metadata where the 401 says, nor at the well-known URLs: the origin, which serves authorization
        // server metadata, is not taken for a 2025-03-26 server's, and the client's secret goes nowhere.
        ctx.tries++;
        await against(
          {
            '/mcp': (req, res, { json, origin }) =>
              json(
                res,
                401,
                {},
                {
                  'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/x"`,
                },
              ),
            '/.well-known/oauth-protected-resource/mcp': (req, res, { json }) => json(res, 404, {}),
          },
          async (server) => {
            const outcome = await send(service(), server);
            refused(ctx, 'no metadata where the 401 says', outcome, 'discovery');
            ctx.check(
              !server.hits['/token'] && !server.hits['/.well-known/oauth-authorization-server'],
              'no metadata where the 401 says: the origin was taken for the authorization server',
            );
          },
        );
      } finally {
        await elsewhere.close();
      }
    },
  ),
  clientAttack(
    'as-metadata',
    'authorization server metadata: 10 MB, redirected (loop, cross-origin), another issuer, no S256, http endpoints off loopback',
    async (ctx) => {
      const big = tenMegabytes('{"issuer":"x","pad":"');
      const cases = [
        ['a 10 MB document', { '/.well-known/oauth-authorization-server': (q, r) => r.end(big) }],
        [
          'a redirect to itself',
          {
            '/.well-known/oauth-authorization-server': (q, r, { origin }) => {
              r.writeHead(302, { location: `${origin}/.well-known/oauth-authorization-server` });
              r.end();
            },
          },
        ],
        [
          'a redirect to another origin',
          {
            '/.well-known/oauth-authorization-server': (q, r) => {
              r.writeHead(307, { location: 'https://attacker.example.test/.well-known/x' });
              r.end();
            },
          },
        ],
        [
          'another issuer',
          {
            '/.well-known/oauth-authorization-server': (q, r, { json, server }) =>
              json(r, 200, { ...server.metadata(), issuer: `${server.origin}/` }),
          },
        ],
        [
          'a token endpoint over plain HTTP off loopback',
          {
            '/.well-known/oauth-authorization-server': (q, r, { json, server }) =>
              json(r, 200, { ...server.metadata(), token_endpoint: 'http://attacker.example.test/token' }),
          },
        ],
        [
          'a token endpoint with a javascript: URL',
          {
            '/.well-known/oauth-authorization-server': (q, r, { json, server }) =>
              json(r, 200, { ...server.metadata(), token_endpoint: 'javascript:alert(1)' }),
          },
        ],
        [
          'a token endpoint of 100,000 characters',
          {
            '/.well-known/oauth-authorization-server': (q, r, { json, server }) =>
              json(r, 200, {
                ...server.metadata(),
                token_endpoint: `${server.origin}/${'t'.repeat(100_000)}`,
              }),
          },
        ],
      ];
      for (const [what, routes] of cases) {
        ctx.tries++;
        await against(routes, async (server) => {
          const outcome = await send(service(), server);
          refused(ctx, what, outcome);
          ctx.check(!server.hits['/token'], `${what}: a token was asked for`);
          const metadataHits = server.hits['/.well-known/oauth-authorization-server'] ?? 0;
          ctx.check(metadataHits <= 2, `${what}: the metadata was fetched ${metadataHits} times`);
        });
      }
      // A person's sign-in with a server that does not say it supports S256: refused before registering.
      for (const methods of [undefined, ['plain'], 'S256', [{}]]) {
        ctx.tries++;
        await against(
          {
            '/.well-known/oauth-authorization-server': (q, r, { json, server }) =>
              json(r, 200, { ...server.metadata(), code_challenge_methods_supported: methods }),
          },
          async (server) => {
            const outcome = await send(person(), server);
            refused(ctx, `code_challenge_methods_supported ${JSON.stringify(methods)}`, outcome, 'discovery');
            ctx.check(!server.hits['/register'], 'the client registered with a server without S256');
          },
        );
      }
    },
    () => tenMegabytes('{"issuer":"x","pad":"'),
  ),
  clientAttack(
    'registration',
    'dynamic registration answering junk: HTML, an array, no client_id, a numeric one, a 200 KB one, a 301',
    async (ctx) => {
      const answers = [
        ['HTML', (r) => r.end('<html>hello</html>')],
        ['an array', (r) => r.end('[]')],
        ['no client_id', (r) => r.end('{"client_secret":"x"}')],
        ['a numeric client_id', (r) => r.end('{"client_id":42}')],
        ['a 200 KB client_id', (r) => r.end(JSON.stringify({ client_id: 'c'.repeat(200_000) }))],
        ['a client_id with a newline', (r) => r.end(JSON.stringify({ client_id: 'a\r\nb' }))],
        ['a redirect', (r) => (r.writeHead(301, { location: '/register2' }), r.end())],
      ];
      for (const [what, answer] of answers) {
        ctx.tries++;
        await against(
          {
            '/register': (q, r) => {
              r.statusCode = 201;
              answer(r);
            },
          },
          async (server) => {
            const outcome = await send(person(), server);
            refused(ctx, what, outcome, 'registration');
            ctx.check(!server.hits['/register2'], `${what}: the redirect was followed`);
          },
        );
      }
    },
  ),
  clientAttack(
    'token-answers',
    'token endpoint answers: 10 MB, not JSON, token_type mac or none, expires_in negative, NaN, a string, an object',
    async (ctx) => {
      const base = { access_token: 'tok', token_type: 'Bearer' };
      const answers = [
        ['10 MB', tenMegabytes('{"access_token":"tok","token_type":"Bearer","pad":"')],
        ['not JSON', '{"access_token":'],
        ['token_type mac', JSON.stringify({ ...base, token_type: 'mac' })],
        ['no token_type', JSON.stringify({ access_token: 'tok' })],
        ['token_type DPoP without a proof', JSON.stringify({ ...base, token_type: 'DPoP' })],
        ['expires_in -1', JSON.stringify({ ...base, expires_in: -1 })],
        ['expires_in "soon"', JSON.stringify({ ...base, expires_in: 'soon' })],
        ['expires_in "1e999"', JSON.stringify({ ...base, expires_in: '1e999' })],
        ['expires_in {}', JSON.stringify({ ...base, expires_in: {} })],
        ['an access_token of 1,000 objects', JSON.stringify({ ...base, access_token: [{}] })],
        ['an empty access_token', JSON.stringify({ ...base, access_token: '' })],
      ];
      for (const [what, text] of answers) {
        ctx.tries++;
        await against(
          { '/token': (q, r) => (r.writeHead(200, { 'content-type': 'application/json' }), r.end(text)) },
          async (server) => {
            const outcome = await send(service(), server);
            refused(ctx, what, outcome, 'token');
            ctx.check(
              (server.hits['/mcp'] ?? 0) === 1,
              `${what}: /mcp was sent ${server.hits['/mcp']} requests`,
            );
          },
        );
      }
    },
    () => tenMegabytes('{"access_token":"tok","token_type":"Bearer","pad":"'),
  ),
  clientAttack(
    'token-lifetimes',
    'tokens that expire at once (with and without a refresh token), lifetimes of 1e308, a token held past its expiry',
    async (ctx) => {
      // Every refresh answers an expired token: bounded token requests per send, never a spin.
      for (const refresh of [true, false]) {
        ctx.tries++;
        await against(
          {
            '/token': (q, r, { json, issued }) => {
              issued.add('expired');
              json(r, 200, {
                access_token: 'expired',
                token_type: 'Bearer',
                expires_in: 0,
                ...(refresh ? { refresh_token: 'again' } : {}),
              });
            },
          },
          async (server) => {
            const oauth = service();
            for (let i = 0; i < 3; i++) {
              const outcome = await send(oauth, server);
              ctx.check(!outcome.hung && !outcome.error, () => `expires_in 0: ${described(outcome)}`);
            }
            const tokens = server.hits['/token'] ?? 0;
            const requests = server.hits['/mcp'] ?? 0;
            ctx.check(
              tokens <= 18 && requests <= 9,
              `expires_in 0: ${tokens} token and ${requests} MCP requests for 3 sends`,
            );
            ctx.note(
              `expires_in 0${refresh ? ' with a refresh token' : ''}: ${tokens} token requests for 3 sends`,
            );
          },
        );
      }
      // A token that expired while held, with nothing to refresh it with: authorized again.
      ctx.tries++;
      await against({}, async (server) => {
        const store = new MemoryOAuthStore();
        await store.save(`${server.origin}/mcp`, {
          tokens: {
            accessToken: 'stale',
            tokenType: 'Bearer',
            issuer: server.origin,
            expiresAt: Date.now() - 1,
          },
        });
        const outcome = await send(service({ store }), server);
        ctx.check(outcome.status === 200, () => `a token held past its expiry: ${described(outcome)}`);
      });
      // A lifetime no Date holds is no expiry (it was kept as Infinity, null in JSON: expired forever).
      ctx.tries++;
      await against(
        {
          '/token': (q, r, { json, issued }) => {
            issued.add('forever');
            json(r, 200, { access_token: 'forever', token_type: 'Bearer', expires_in: 1e308 });
          },
        },
        async (server) => {
          const oauth = service();
          const outcome = await send(oauth, server);
          const status = await oauth.status(server.mcp);
          ctx.check(
            outcome.status === 200 && status?.expiresAt === undefined,
            () => `expires_in 1e308: ${described(outcome)}, expiresAt ${status?.expiresAt}`,
          );
        },
      );
    },
  ),
  clientAttack(
    '401-storm',
    'a 401 after every fresh token, and a 403 insufficient_scope naming new scopes each time: bounded retries',
    async (ctx) => {
      ctx.tries++;
      await against(
        {
          '/mcp': (q, r, { json, server }) =>
            json(r, 401, {}, { 'www-authenticate': `${server.challenge()}, error="invalid_token"` }),
        },
        async (server) => {
          const outcome = await send(service(), server);
          ctx.check(outcome.status === 401, () => `401 storm: ${described(outcome)}`);
          const requests = server.hits['/mcp'] ?? 0;
          ctx.check(requests <= 3, `401 storm: ${requests} MCP requests for one send`);
          ctx.check((server.hits['/token'] ?? 0) <= 2, `401 storm: ${server.hits['/token']} token requests`);
        },
      );
      ctx.tries++;
      let n = 0;
      await against(
        {
          '/mcp': (q, r, { json, server }) =>
            q.headers.authorization
              ? json(
                  r,
                  403,
                  {},
                  {
                    'www-authenticate': `Bearer error="insufficient_scope", scope="s${n++}", resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`,
                  },
                )
              : json(r, 401, {}, { 'www-authenticate': server.challenge() }),
        },
        async (server) => {
          const outcome = await send(service(), server);
          ctx.check(outcome.status === 403, () => `403 storm: ${described(outcome)}`);
          const requests = server.hits['/mcp'] ?? 0;
          ctx.check(requests <= 4, `403 storm: ${requests} MCP requests for one send`);
        },
      );
    },
  ),
  clientAttack(
    'slow-metadata',
    'resource metadata trickled a byte at a time: the send ends when its caller aborts it',
    async (ctx) => {
      ctx.tries++;
      const trickles = new Set();
      let arrive;
      const arrived = new Promise((resolve) => (arrive = resolve));
      await against(
        {
          '/.well-known/oauth-protected-resource/mcp': (q, r) => {
            r.writeHead(200, { 'content-type': 'application/json' });
            r.write('{');
            const timer = setInterval(() => r.write(' '), 50);
            trickles.add(timer);
            r.on('close', () => clearInterval(timer));
            arrive();
          },
        },
        async (hostile) => {
          const controller = new AbortController();
          const sent = send(service(), hostile, { signal: controller.signal });
          await arrived;
          const abortedAt = performance.now();
          controller.abort();
          const outcome = await sent;
          const after = performance.now() - abortedAt;
          ctx.check(
            outcome.error?.name === 'AbortError' && after < 1000,
            () => `the aborted send: ${described(outcome)} ${after.toFixed(0)} ms after the abort`,
          );
        },
      );
      for (const timer of trickles) clearInterval(timer);
    },
  ),
];
