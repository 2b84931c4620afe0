import { describe, expect, it } from 'vitest';
import type { AuthorizationServer } from './authorization-server.js';
import { chooseAuthMethod, clientSecretBasic, registrationAuthMethod } from './client-authentication.js';

const server = (methods?: string[]): AuthorizationServer => ({
  issuer: 'https://as.test',
  ...(methods ? { token_endpoint_auth_methods_supported: methods } : {}),
});

describe('client authentication', () => {
  it('chooses the method from the credentials and what the server takes', () => {
    expect(chooseAuthMethod({ clientId: 'a' }, server())).toBe('none');
    expect(chooseAuthMethod({ clientId: 'a', clientSecret: 's' }, server())).toBe('client_secret_basic');
    expect(chooseAuthMethod({ clientId: 'a', clientSecret: 's' }, server(['client_secret_post']))).toBe(
      'client_secret_post',
    );
    expect(chooseAuthMethod({ clientId: 'a', clientSecret: 's' }, server(['none']))).toBe('none');
    expect(chooseAuthMethod({ clientId: 'a', privateKey: 'pem' }, server())).toBe('private_key_jwt');
    expect(
      chooseAuthMethod({ clientId: 'a', clientSecret: 's', method: 'client_secret_post' }, server()),
    ).toBe('client_secret_post');
    expect(() => chooseAuthMethod({ clientId: 'a', method: 'tls_client_auth' }, server())).toThrow(
      /Unsupported/,
    );
  });

  it('registers as a public client when the server allows it', () => {
    expect(registrationAuthMethod(server())).toBe('none');
    expect(registrationAuthMethod(server(['client_secret_post']))).toBe('client_secret_post');
    expect(registrationAuthMethod(server(['client_secret_basic', 'client_secret_post']))).toBe(
      'client_secret_basic',
    );
  });

  it('form-encodes id and secret for Basic, leaving unreserved characters as they are', async () => {
    const headers = new Headers();
    await clientSecretBasic('p@ss:wörd-._*')(
      server(),
      { client_id: 'pre-registered.client' },
      new URLSearchParams(),
      headers,
    );
    const decoded = atob(String(headers.get('authorization')).slice(6));
    expect(decoded).toBe('pre-registered.client:p%40ss%3Aw%C3%B6rd-._*');
  });
});
