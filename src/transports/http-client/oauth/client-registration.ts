/**
 * Who the OAuth client is at an authorization server, in the order MCP 2025-11-25 prefers: credentials
 * the application registered beforehand; else a registration made earlier with that same server (never
 * one made with another: SEP-2352); else a Client ID Metadata Document (its HTTPS URL is the
 * `client_id`) when the server supports them; else dynamic client registration (RFC 7591) when the
 * server offers it. Registrations are kept per issuer. A refresh presents the client the tokens were
 * issued to, and never registers.
 * @module
 */
import { errorMessage } from '../../../protocol/errors.js';
import type { AuthorizationServer } from './authorization-server.js';
import { registrationAuthMethod, type ClientCredentials } from './client-authentication.js';
import { OAuthError, type OAuthErrorDetails } from './oauth-error.js';
import { checkedUrl, isLoopback, oauthErrorBody, readJsonObject } from './oauth-http.js';
import type { ClientSource, StoredClient, StoredRegistration } from './oauth-store.js';

/** What the application says about its client (see `OAuthClientOptions`). */
export interface ClientSettings {
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  privateKey?: ClientCredentials['privateKey'];
  signingAlgorithm?: string | undefined;
  tokenEndpointAuthMethod?: string | undefined;
  clientMetadataUrl?: string | undefined;
  clientMetadata?: Record<string, unknown> | undefined;
  /** The redirect URI of the authorization code flow (absent for the other grants). */
  redirectUrl?: string | undefined;
  /** The grant types to register. */
  grantTypes: readonly string[];
}

export interface ResolvedClient {
  credentials: ClientCredentials;
  source: ClientSource;
  /** A registration made just now, to keep for this issuer. */
  registration?: StoredRegistration;
}

/**
 * The client to use at `server`, registering it there when nothing else will do. `redirect`: the grant
 * sends a person to `settings.redirectUrl`.
 */
export async function resolveClient(
  settings: ClientSettings,
  server: AuthorizationServer,
  stored: StoredRegistration | undefined,
  redirect: boolean,
  fetcher: typeof fetch,
  allowInsecureHttp: boolean,
): Promise<ResolvedClient> {
  const common = { signingAlgorithm: settings.signingAlgorithm };
  if (settings.clientId !== undefined) {
    return {
      source: 'pre-registered',
      credentials: {
        ...common,
        clientId: settings.clientId,
        clientSecret: settings.clientSecret,
        privateKey: settings.privateKey,
        method: settings.tokenEndpointAuthMethod,
      },
    };
  }
  if (stored !== undefined && usable(stored, redirect ? settings.redirectUrl : undefined)) {
    return { source: 'registered', credentials: fromRegistration(stored) };
  }
  if (settings.clientMetadataUrl !== undefined && server.client_id_metadata_document_supported === true) {
    return {
      source: 'metadata-document',
      credentials: { clientId: settings.clientMetadataUrl, method: 'none' },
    };
  }
  if (typeof server.registration_endpoint === 'string') {
    const registration = await register(settings, server, fetcher, allowInsecureHttp);
    return { source: 'dynamic-registration', credentials: fromRegistration(registration), registration };
  }
  throw new OAuthError(
    `No client id for the authorization server ${server.issuer}: it supports neither Client ID Metadata Documents` +
      `${settings.clientMetadataUrl === undefined ? ' (none is configured)' : ''} nor dynamic client registration; configure a pre-registered clientId`,
    { step: 'registration' },
  );
}

/**
 * The client a refresh presents: the one the tokens were issued to (RFC 6749 §6: a refresh token is
 * bound to its client), from what is kept — never a new registration. A pre-registered client's secret or
 * key comes from `settings` when they configure that client id; a registration's from the one kept for
 * the issuer. `undefined` when that registration is no longer kept.
 */
export function issuedClient(
  client: StoredClient,
  settings: ClientSettings,
  stored: StoredRegistration | undefined,
): ClientCredentials | undefined {
  switch (client.source) {
    case 'pre-registered': {
      const configured = settings.clientId === client.clientId;
      return {
        clientId: client.clientId,
        method: client.tokenEndpointAuthMethod,
        ...(configured
          ? {
              clientSecret: settings.clientSecret,
              privateKey: settings.privateKey,
              signingAlgorithm: settings.signingAlgorithm,
            }
          : {}),
      };
    }
    case 'registered':
    case 'dynamic-registration':
      return stored?.clientId === client.clientId ? fromRegistration(stored) : undefined;
    case 'metadata-document':
      return { clientId: client.clientId, method: 'none' };
  }
}

function fromRegistration(registration: StoredRegistration): ClientCredentials {
  return {
    clientId: registration.clientId,
    clientSecret: registration.clientSecret,
    method: registration.tokenEndpointAuthMethod,
  };
}

/**
 * A stored registration is reused while its secret lives and, for a grant that redirects a person,
 * while it lists the redirect URI (a refresh needs none).
 */
function usable(registration: StoredRegistration, redirectUrl: string | undefined): boolean {
  const expires = registration.clientSecretExpiresAt;
  if (expires !== undefined && expires !== 0 && expires <= Date.now()) return false;
  return redirectUrl === undefined || (registration.redirectUris ?? []).includes(redirectUrl);
}

/** Registers the client dynamically (RFC 7591), with the metadata MCP asks for (SEP-837 `application_type`). */
async function register(
  settings: ClientSettings,
  server: AuthorizationServer,
  fetcher: typeof fetch,
  allowInsecureHttp: boolean,
): Promise<StoredRegistration> {
  checkedUrl(server.registration_endpoint, 'The registration endpoint', 'registration', allowInsecureHttp);
  const method = registrationAuthMethod(server);
  const redirectUris = settings.redirectUrl === undefined ? [] : [settings.redirectUrl];
  const metadata = {
    client_name: 'toolwire',
    redirect_uris: redirectUris,
    grant_types: [...settings.grantTypes],
    response_types: settings.grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: method,
    application_type: applicationType(settings.redirectUrl),
    ...settings.clientMetadata,
  };
  const endpoint = String(server.registration_endpoint);
  const fail = (why: string, details: Partial<OAuthErrorDetails> = {}, cause?: unknown) =>
    new OAuthError(
      `Registering the client at ${endpoint} failed: ${why}`,
      { step: 'registration', url: endpoint, ...details },
      cause,
    );
  let response: Response;
  try {
    response = await fetcher(endpoint, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify(metadata),
    });
  } catch (error) {
    throw fail(errorMessage(error), {}, error);
  }
  // RFC 7591 §3.2.1 says 201; some servers answer 200. client_secret_expires_at is taken when present.
  const body =
    response.status === 200 || response.status === 201 ? await readJsonObject(response) : undefined;
  if (body === undefined) {
    const error = await oauthErrorBody(response);
    throw fail(
      `HTTP ${response.status}${error.error ? ` ${error.error}` : ''}${error.errorDescription ? ` (${error.errorDescription})` : ''}`,
      {
        status: response.status,
        ...error,
      },
    );
  }
  if (typeof body.client_id !== 'string' || body.client_id === '') throw fail('the answer has no client_id');
  if (!CLIENT_CREDENTIAL.test(body.client_id)) throw fail(`the client_id is ${unusable(body.client_id)}`);
  const secret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
  if (secret !== undefined && !CLIENT_CREDENTIAL.test(secret))
    throw fail(`the client_secret is ${unusable(secret)}`);
  const expires =
    typeof body.client_secret_expires_at === 'number' ? body.client_secret_expires_at : undefined;
  const registered =
    typeof body.token_endpoint_auth_method === 'string' ? body.token_endpoint_auth_method : method;
  return {
    clientId: body.client_id,
    ...(secret === undefined ? {} : { clientSecret: secret }),
    ...(expires === undefined || expires === 0 ? {} : { clientSecretExpiresAt: expires * 1000 }),
    tokenEndpointAuthMethod: registered,
    redirectUris,
  };
}

/**
 * A client id or secret as RFC 6749 (Appendix A.1, A.2) has them: visible ASCII characters and spaces
 * (VSCHAR), and at most 4,096 of them (every authorization URL and token request carries the id).
 */
const CLIENT_CREDENTIAL = /^[\x20-\x7e]{1,4096}$/;

function unusable(value: string): string {
  return value.length > 4096
    ? `${value.length} characters long (4,096 at most)`
    : 'not made of visible ASCII characters (RFC 6749 VSCHAR)';
}

/** SEP-837: `native` for a loopback or custom-scheme redirect (a desktop or CLI app), else `web`. */
function applicationType(redirectUrl: string | undefined): 'native' | 'web' {
  if (redirectUrl === undefined) return 'native';
  try {
    const url = new URL(redirectUrl);
    return url.protocol === 'https:' && !isLoopback(url) ? 'web' : 'native';
  } catch {
    return 'native';
  }
}
