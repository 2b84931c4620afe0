import { createHash } from 'node:crypto';
import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  jwtVerify,
  type JWK,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { DpopProver } from './dpop-prover.js';

describe('DPoP proofs', () => {
  it('signs a fresh proof per request: method, URL without query, token hash, the origin nonce', async () => {
    const prover = await DpopProver.create();
    const url = new URL('https://rs.test/mcp?x=1#y');
    const first = await prover.proof('post', url, 'token-1');
    const header = decodeProtectedHeader(first);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'dpop+jwt' });
    expect((header.jwk as JWK).d).toBeUndefined();
    const { payload } = await jwtVerify(first, await importJWK(header.jwk as JWK, 'ES256'));
    expect(payload).toMatchObject({
      htm: 'POST',
      htu: 'https://rs.test/mcp',
      ath: createHash('sha256').update('token-1').digest('base64url'),
    });
    expect(payload.nonce).toBeUndefined();

    prover.learnNonce(new Response(null, { headers: { 'dpop-nonce': 'n-1' } }), url);
    const second = decodeJwt(await prover.proof('GET', url));
    expect(second).toMatchObject({ htm: 'GET', nonce: 'n-1' });
    expect(second.jti).not.toBe(payload.jti);
    expect(second.ath).toBeUndefined();
    expect(decodeJwt(await prover.proof('GET', new URL('https://as.test/token'))).nonce).toBeUndefined();
  });

  it('keeps its key across a store round trip (the tokens stay bound to it)', async () => {
    const prover = await DpopProver.create();
    const again = await DpopProver.create(await prover.exportKey());
    const thumbprint = async (proof: string) =>
      calculateJwkThumbprint(decodeProtectedHeader(proof).jwk as JWK);
    const url = new URL('https://rs.test/mcp');
    expect(await thumbprint(await again.proof('POST', url))).toBe(
      await thumbprint(await prover.proof('POST', url)),
    );
  });
});
