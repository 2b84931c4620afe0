// Token attacks on the HTTP transport's OAuth resource server (`toolwire serve --http --jwks … --issuer …
// --audience …`, its JWKS served from this process on loopback): alg none, HS256 signed with the public key
// (algorithm confusion), a key nobody published, expired, not yet valid, for another audience or issuer,
// unknown and hostile key ids, a jku/x5u pointing elsewhere, 20 KB tokens, a token in the URL, another
// scheme, another subject on someone's session — and a burst of unknown key ids, which must not make the
// server fetch the JWKS once per request. Every refusal is a 401 with a Bearer challenge; a good token works.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { openSession, post } from './lib/http.mjs';

const ISSUER = 'https://issuer.attack.test';
const AUDIENCE = 'http://127.0.0.1/attack-mcp';
const b64 = (value) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** An issuer on loopback: an ES256 key whose JWKS it serves (counting fetches), and tokens of every kind. */
async function startIssuer() {
  const pair = await generateKeyPair('ES256', { extractable: true });
  const other = await generateKeyPair('ES256');
  const publicJwk = await exportJWK(pair.publicKey);
  const jwk = { ...publicJwk, kid: 'k1', alg: 'ES256', use: 'sig' };
  const hits = { jwks: 0, elsewhere: 0 };
  const server = createServer((req, res) => {
    if (req.url === '/jwks') hits.jwks++;
    else hits.elsewhere++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${server.address().port}`;
  const now = Math.floor(Date.now() / 1000);
  const claims = (subject, extra = {}) => ({
    sub: subject,
    iss: ISSUER,
    aud: AUDIENCE,
    iat: now,
    exp: now + 600,
    scope: '',
    ...extra,
  });
  const sign = (payload, { key = pair.privateKey, header = {} } = {}) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: 'k1', ...header }).sign(key);
  const unsigned = (header, payload) => `${b64(header)}.${b64(payload)}.`;
  // Signed by hand, for headers jose refuses to write (an unknown `crit`).
  const signedRaw = async (header, payload) => {
    const input = `${b64(header)}.${b64(payload)}`;
    const signature = await crypto.subtle.sign(
      { name: 'ECDSA', hash: 'SHA-256' },
      pair.privateKey,
      Buffer.from(input),
    );
    return `${input}.${Buffer.from(signature).toString('base64url')}`;
  };
  // HS256 over the header and payload, keyed with the public key's JWK text: the algorithm-confusion forgery.
  const { createHmac } = await import('node:crypto');
  const confused = (payload) => {
    const input = `${b64({ alg: 'HS256', kid: 'k1' })}.${b64(payload)}`;
    return `${input}.${createHmac('sha256', JSON.stringify(publicJwk)).update(input).digest('base64url')}`;
  };
  return {
    jwksUrl: `${base}/jwks`,
    hits,
    good: (subject) => sign(claims(subject)),
    /** A token signed by a key nobody published, naming key id `kid`. */
    unknownKid: (kid) => sign(claims('mallory'), { key: other.privateKey, header: { kid } }),
    /** Bad tokens by name: each must be refused. */
    async bad() {
      return {
        'alg none': unsigned({ alg: 'none' }, claims('mallory')),
        'alg none, kid k1': unsigned({ alg: 'none', kid: 'k1' }, claims('mallory')),
        'HS256 keyed with the public key': confused(claims('mallory')),
        'signed by a key nobody published': await sign(claims('mallory'), { key: other.privateKey }),
        expired: await sign(claims('mallory', { exp: now - 3600, iat: now - 7200 })),
        'not valid for an hour': await sign(claims('mallory', { nbf: now + 3600 })),
        'another audience': await sign(claims('mallory', { aud: 'https://elsewhere.example' })),
        'another issuer': await sign(claims('mallory', { iss: 'https://evil.example' })),
        'an unknown kid': await sign(claims('mallory'), { header: { kid: 'nope' } }),
        'a kid of 8 KB': await sign(claims('mallory'), { header: { kid: '../'.repeat(2700) } }),
        'jku pointing elsewhere': await sign(claims('mallory'), {
          header: { jku: `${base}/evil`, kid: 'evil' },
        }),
        'x5u pointing elsewhere': await sign(claims('mallory'), { header: { x5u: `${base}/evil-x5u` } }),
        'an unknown crit header': await signedRaw(
          { alg: 'ES256', kid: 'k1', crit: ['exp-attack'], 'exp-attack': 1 },
          claims('mallory'),
        ),
        'a truncated signature': (await sign(claims('mallory'))).slice(0, -10),
        'three dots of garbage': 'a.b.c',
        'not a JWT': 'hello',
        '20 KB of token': 'A'.repeat(20_000),
      };
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The verdict on a response that must be a refusal: 401 with a Bearer challenge (431 for a huge header). */
function refused(ctx, what, res) {
  ctx.tries++;
  if (res.status === 431 || res.status === 400) return; // a header too large, or not a token at all
  ctx.check(res.status === 401, `${what}: HTTP ${res.status}, not 401`);
  ctx.check(/^Bearer/i.test(res.headers.get?.('www-authenticate') ?? ''), `${what}: no Bearer challenge`);
}

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

/** The target: toolwire serve with JWT auth against a fresh issuer (kept on the context). */
async function authTarget(ctx) {
  const issuer = (ctx.issuer = await startIssuer());
  return {
    transport: 'http',
    flags: ['--json', '--jwks', issuer.jwksUrl, '--issuer', ISSUER, '--audience', AUDIENCE],
    bystander: { headers: { authorization: `Bearer ${await issuer.good('bystander')}` } },
    cleanup: () => issuer.close(),
  };
}

export default [
  {
    name: 'jwt',
    title:
      'forged, expired, misaddressed and malformed tokens (alg none, HS256 with the public key, jku, 20 KB, …)',
    target: authTarget,
    async run(ctx) {
      const { issuer } = ctx;
      const url = ctx.target.url;
      const bad = await issuer.bad();
      const rounds = ctx.quick ? 2 : 10;
      for (let round = 0; round < rounds; round++) {
        for (const [what, token] of Object.entries(bad))
          refused(ctx, what, await post(url, ping, { headers: { authorization: `Bearer ${token}` } }));
        refused(ctx, 'no Authorization', await post(url, ping));
        refused(ctx, 'Bearer and nothing', await post(url, ping, { headers: { authorization: 'Bearer' } }));
        refused(
          ctx,
          'Basic credentials',
          await post(url, ping, { headers: { authorization: 'Basic YTpi' } }),
        );
        const inUrl = await post(`${url}?access_token=${await issuer.good('mallory')}`, ping);
        ctx.tries++;
        ctx.check(inUrl.status >= 400 && inUrl.status < 500, `a token in the URL: HTTP ${inUrl.status}`);
      }
      ctx.check(
        issuer.hits.elsewhere === 0,
        `the server fetched a URL a token named: ${issuer.hits.elsewhere} times`,
      );
      // A good token works; another subject's token on its session is refused (404).
      const alice = { authorization: `Bearer ${await issuer.good('alice')}` };
      const session = await openSession(url, { headers: alice });
      ctx.tries += 2;
      ctx.check(
        (await post(url, ping, { session, headers: alice })).status === 200,
        'a good token on its own session was refused',
      );
      const bob = { authorization: `Bearer ${await issuer.good('bob')}` };
      const stolen = await post(url, ping, { session, headers: bob });
      ctx.check(stolen.status === 404, `another subject on alice's session: HTTP ${stolen.status}`);
    },
  },
  {
    name: 'kid-burst',
    title: '300 tokens with unknown key ids, 16 at a time: the JWKS is not fetched once per request',
    target: authTarget,
    async run(ctx) {
      const { issuer } = ctx;
      const url = ctx.target.url;
      const before = issuer.hits.jwks;
      const count = ctx.quick ? 60 : 300;
      const tokens = await Promise.all(Array.from({ length: count }, (_, i) => issuer.unknownKid(`k-${i}`)));
      for (let i = 0; i < count; i += 16) {
        const batch = tokens
          .slice(i, i + 16)
          .map((token) => post(url, ping, { headers: { authorization: `Bearer ${token}` } }));
        for (const res of await Promise.all(batch)) refused(ctx, 'an unknown kid', res);
      }
      const fetched = issuer.hits.jwks - before;
      ctx.note(`${count} unknown kids made the server fetch the JWKS ${fetched} times`);
      ctx.check(fetched <= 5, `${count} unknown kids made the server fetch the JWKS ${fetched} times`);
    },
  },
];
