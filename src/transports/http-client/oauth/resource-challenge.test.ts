import { describe, expect, it } from 'vitest';
import { resourceChallenge, wantsDpopNonce } from './resource-challenge.js';

const refused = (header: string, headers: Record<string, string> = {}) =>
  new Response(null, { status: 401, headers: { 'www-authenticate': header, ...headers } });

describe('resource challenges', () => {
  it('reads the Bearer challenge: error, scope, resource metadata', () => {
    expect(
      resourceChallenge(
        refused('Bearer error="insufficient_scope", scope="a b", resource_metadata="https://rs.test/m"'),
      ),
    ).toEqual({
      dpop: false,
      error: 'insufficient_scope',
      scope: 'a b',
      resourceMetadata: 'https://rs.test/m',
    });
  });

  it('notices a DPoP challenge and takes its error, and the Bearer one for the rest', () => {
    const response = refused(
      'DPoP algs="ES256", error="use_dpop_nonce", Bearer resource_metadata="https://rs.test/m"',
      {
        'dpop-nonce': 'n1',
      },
    );
    const challenge = resourceChallenge(response);
    expect(challenge).toEqual({ dpop: true, error: 'use_dpop_nonce', resourceMetadata: 'https://rs.test/m' });
    expect(wantsDpopNonce(response, challenge)).toBe(true);
    expect(wantsDpopNonce(refused('DPoP error="use_dpop_nonce"'), challenge)).toBe(false);
  });

  it('is empty for a response without a Bearer or DPoP challenge', () => {
    expect(resourceChallenge(refused('Basic realm="x"'))).toEqual({ dpop: false });
    expect(resourceChallenge(new Response(null, { status: 401 }))).toEqual({ dpop: false });
  });
});
