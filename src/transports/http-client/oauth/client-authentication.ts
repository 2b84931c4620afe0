/**
 * How the OAuth client authenticates to a token endpoint (RFC 6749 §2.3, RFC 7523 §2.2): with a
 * private key, `private_key_jwt` (an assertion signed for the server's issuer); with a secret,
 * `client_secret_basic` unless the server only takes `client_secret_post`; without either, `none`
 * (a public client sends its `client_id`). A method the registration named wins.
 * @module
 */
import { importJWK, importPKCS8, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { OAuthError } from './oauth-error.js';
import type { AuthorizationServer } from './authorization-server.js';

/** The token endpoint authentication methods the client speaks. */
export type TokenEndpointAuthMethod =
  'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/** A private key for `private_key_jwt`: a CryptoKey, a PKCS#8 PEM string, or a private JWK. */
export type ClientPrivateKey = CryptoKey | string | JWK;

/** What the client knows about itself at one authorization server. */
export interface ClientCredentials {
  clientId: string;
  clientSecret?: string | undefined;
  privateKey?: ClientPrivateKey | undefined;
  /** The JWS algorithm of `privateKey` when it is a PEM or a JWK without `alg` (default ES256). */
  signingAlgorithm?: string | undefined;
  /** The method to use; chosen from the credentials and the server's metadata when absent. */
  method?: string | undefined;
}

/** A client, ready for oauth4webapi's token requests. */
export interface ClientIdentity {
  client: oauth.Client;
  auth: oauth.ClientAuth;
  method: TokenEndpointAuthMethod;
}

const METHODS: ReadonlySet<string> = new Set([
  'none',
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
]);

/** The method a client with these credentials uses at `server`. */
export function chooseAuthMethod(
  credentials: ClientCredentials,
  server: AuthorizationServer,
): TokenEndpointAuthMethod {
  if (credentials.method !== undefined) {
    if (!METHODS.has(credentials.method)) {
      throw new OAuthError(
        `Unsupported token endpoint authentication method ${JSON.stringify(credentials.method)}`,
        {
          step: 'configuration',
        },
      );
    }
    return credentials.method as TokenEndpointAuthMethod;
  }
  if (credentials.privateKey !== undefined) return 'private_key_jwt';
  if (credentials.clientSecret === undefined) return 'none';
  // RFC 8414 §2: client_secret_basic when the server lists nothing.
  const supported = server.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  if (supported.includes('none')) return 'none';
  return 'client_secret_basic';
}

/** The method to ask for when registering dynamically: `none` (a public client) if the server takes it. */
export function registrationAuthMethod(server: AuthorizationServer): TokenEndpointAuthMethod {
  const supported = server.token_endpoint_auth_methods_supported;
  if (supported === undefined || supported.includes('none')) return 'none';
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return 'none';
}

/** The oauth4webapi client and authentication for these credentials at `server`. */
export async function clientIdentity(
  credentials: ClientCredentials,
  server: AuthorizationServer,
): Promise<ClientIdentity> {
  const method = chooseAuthMethod(credentials, server);
  const client: oauth.Client = { client_id: credentials.clientId, token_endpoint_auth_method: method };
  const missingSecret = () =>
    new OAuthError(`${method} needs a client secret; none is configured for ${credentials.clientId}`, {
      step: 'configuration',
    });
  switch (method) {
    case 'none':
      return { client, auth: oauth.None(), method };
    case 'client_secret_basic':
      if (credentials.clientSecret === undefined) throw missingSecret();
      return { client, auth: clientSecretBasic(credentials.clientSecret), method };
    case 'client_secret_post':
      if (credentials.clientSecret === undefined) throw missingSecret();
      return { client, auth: oauth.ClientSecretPost(credentials.clientSecret), method };
    case 'private_key_jwt': {
      if (credentials.privateKey === undefined) {
        throw new OAuthError(
          `private_key_jwt needs a private key; none is configured for ${credentials.clientId}`,
          {
            step: 'configuration',
          },
        );
      }
      const key = await importPrivateKey(credentials.privateKey, credentials.signingAlgorithm);
      return { client, auth: oauth.PrivateKeyJwt(key), method };
    }
  }
}

/**
 * `client_secret_basic` (RFC 6749 §2.3.1): id and secret form-urlencoded, then Basic. The WHATWG
 * encoding (`URLSearchParams`) leaves `-`, `.`, `_` and `*` as they are, as most servers expect (some do
 * not decode them); oauth4webapi's own encodes them too.
 */
export function clientSecretBasic(clientSecret: string): oauth.ClientAuth {
  return (_server, client, _body, headers) => {
    const encode = (value: string) => new URLSearchParams([['', value]]).toString().slice(1);
    headers.set('authorization', `Basic ${btoa(`${encode(client.client_id)}:${encode(clientSecret)}`)}`);
  };
}

async function importPrivateKey(key: ClientPrivateKey, algorithm: string | undefined): Promise<CryptoKey> {
  if (key instanceof CryptoKey) return key;
  try {
    if (typeof key === 'string') return (await importPKCS8(key, algorithm ?? 'ES256')) as CryptoKey;
    return (await importJWK(key, key.alg ?? algorithm ?? 'ES256')) as CryptoKey;
  } catch (error) {
    throw new OAuthError('The client private key cannot be imported', { step: 'configuration' }, error);
  }
}
