/**
 * DPoP (RFC 9449): proofs that the client holds the key its access tokens are bound to. One ES256 key
 * pair per server the client is authorized for (kept with its tokens, so a stored token stays usable);
 * a fresh proof (new `jti`) for every request, naming its method and URL (`htm`, `htu` without query or
 * fragment), the hash of the access token it carries (`ath`), and the last nonce each origin sent in a
 * `DPoP-Nonce` header (§8, §9). Signed with jose.
 * @module
 */
import { SignJWT, base64url, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { keepNewest } from '../../../protocol/keep-newest.js';

/** The one proof algorithm used (the one every DPoP server supports in practice). */
export const DPOP_ALGORITHM = 'ES256';
/** The most origins whose nonce is remembered (the oldest is forgotten first). */
const MAX_NONCES = 100;

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export class DpopProver {
  readonly #keys: KeyPair;
  readonly #publicJwk: JWK;
  readonly #nonces = new Map<string, string>();

  private constructor(keys: KeyPair, publicJwk: JWK) {
    this.#keys = keys;
    this.#publicJwk = publicJwk;
  }

  /** A prover with a new key pair, or with the one `stored` holds (a private JWK from `exportKey`). */
  static async create(stored?: JWK): Promise<DpopProver> {
    if (stored !== undefined) {
      const privateKey = (await importJWK(stored, DPOP_ALGORITHM, {
        extractable: true,
      })) as KeyPair['privateKey'];
      const { d: _private, ...publicJwk } = stored;
      const publicKey = (await importJWK(publicJwk, DPOP_ALGORITHM)) as KeyPair['publicKey'];
      return new DpopProver({ privateKey, publicKey }, publicOnly(publicJwk));
    }
    const keys = await generateKeyPair(DPOP_ALGORITHM, { extractable: true });
    return new DpopProver(keys, publicOnly(await exportJWK(keys.publicKey)));
  }

  /** The key pair as a private JWK, to keep with the tokens bound to it. */
  exportKey(): Promise<JWK> {
    return exportJWK(this.#keys.privateKey);
  }

  /** A proof for one request; with `accessToken`, bound to it (`ath`). */
  async proof(method: string, url: URL, accessToken?: string): Promise<string> {
    const claims: Record<string, string> = { htm: method.toUpperCase(), htu: `${url.origin}${url.pathname}` };
    const nonce = this.#nonces.get(url.origin);
    if (nonce !== undefined) claims.nonce = nonce;
    if (accessToken !== undefined) claims.ath = await tokenHash(accessToken);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: DPOP_ALGORITHM, typ: 'dpop+jwt', jwk: this.#publicJwk })
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .sign(this.#keys.privateKey);
  }

  /** Remembers the nonce a server sent (`DPoP-Nonce`), for the next proofs to its origin. */
  learnNonce(response: Response, url: URL): void {
    const nonce = response.headers.get('dpop-nonce');
    if (nonce === null || nonce.length === 0 || nonce.length > 1024) return;
    this.#nonces.delete(url.origin);
    this.#nonces.set(url.origin, nonce);
    keepNewest(this.#nonces, MAX_NONCES);
  }
}

/** The members of a public EC JWK a proof's header carries. */
function publicOnly(jwk: JWK): JWK {
  const { kty, crv, x, y } = jwk;
  return { kty, crv, x, y };
}

/** `ath`: the base64url SHA-256 of the access token (RFC 9449 §4.2). */
async function tokenHash(accessToken: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken));
  return base64url.encode(new Uint8Array(digest));
}
