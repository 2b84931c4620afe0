/**
 * The OAuth client of the commands that talk to a server by URL (`tools`, `call`, …): when `toolwire
 * login` kept tokens for that URL, they are sent (and refreshed) with every request. Such a command never
 * asks anyone to sign in: when the tokens can no longer be refreshed, it fails (exit 5) saying to log in
 * again.
 * @module
 */
import {
  OAuthClient,
  type OAuthClientCommonOptions,
  type StoredTokens,
} from '../transports/http-client/index.js';
import { CLI } from './command-name.js';
import { FileOAuthStore } from './file-oauth-store.js';
import { DEFAULT_REDIRECT_PORT } from './loopback-redirect.js';

/** The store key of an MCP server (see `OAuthStore`): its URL without fragment. */
export function storeKey(url: URL): string {
  return `${url.origin}${url.pathname}${url.search}`;
}

/** An OAuth client with the tokens `toolwire login` kept for `url`, or `undefined` when it kept none. */
export function storedOAuthClient(
  url: URL,
  store: FileOAuthStore = new FileOAuthStore(),
): OAuthClient | undefined {
  const record = store.load(storeKey(url));
  if (record?.tokens === undefined) return undefined;
  // The redirect URI login registered (a re-authorization could then reuse that registration).
  const registered = Object.values(record.registrations ?? {}).find(
    (registration) => registration.redirectUris?.[0],
  );
  return new OAuthClient({
    redirectUrl: registered?.redirectUris?.[0] ?? `http://127.0.0.1:${DEFAULT_REDIRECT_PORT}/callback`,
    authorize: () =>
      Promise.reject(new Error(`the stored sign-in has ended; sign in again: ${CLI} login ${url.href}`)),
    store,
    ...storedClientOptions(record.tokens),
  });
}

/**
 * The options that make an OAuth client the one `tokens` were issued to, as `toolwire login` was told:
 * a pre-registered client id (bound to the issuer, its secret from `TOOLWIRE_CLIENT_SECRET` as at login —
 * the token file never holds it), or a Client ID Metadata Document. Nothing for a registration: the
 * store keeps it. (The gateway does the same with login's tokens: `loginClient` in upstream-oauth.ts.)
 */
function storedClientOptions(
  tokens: StoredTokens,
  env: NodeJS.ProcessEnv = process.env,
): Partial<OAuthClientCommonOptions> {
  const client = tokens.client;
  if (client?.source === 'metadata-document') return { clientMetadataUrl: client.clientId };
  if (client?.source !== 'pre-registered') return {};
  const secret = env.TOOLWIRE_CLIENT_SECRET;
  return {
    clientId: client.clientId,
    clientIssuer: tokens.issuer,
    ...(secret ? { clientSecret: secret } : {}),
  };
}
