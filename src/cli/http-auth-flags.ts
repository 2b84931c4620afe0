/**
 * The JWT flags `toolwire serve --http` and `toolwire gateway` share: `--jwks URL --issuer ISS
 * [--audience URL] [--authorization-server URL] [--scope S]` make an HTTP endpoint an OAuth 2.1 resource
 * server whose bearer tokens are JWTs signed by a key of the JWKS.
 * @module
 */
import type { HttpAuthOptions } from '../transports/http/index.js';
import { usageError } from './exit-code.js';

export const HTTP_AUTH_FLAGS = {
  jwks: { type: 'string' },
  issuer: { type: 'string' },
  audience: { type: 'string' },
  'authorization-server': { type: 'string' },
  scope: { type: 'string' },
} as const;

export type HttpAuthFlags = { [K in keyof typeof HTTP_AUTH_FLAGS]?: string | undefined };

export interface HttpAuthContext {
  host: string;
  port: number;
  /** The endpoint's path, for the default audience (default `/mcp`). */
  endpoint?: string;
  hint: string | undefined;
  /** The scope every request needs when `--scope` is not given. */
  defaultScope?: string;
  /** The scopes the metadata lists. */
  scopesSupported?: string[];
}

/** Whether any of the JWT flags is given. */
export function hasHttpAuthFlags(values: HttpAuthFlags): boolean {
  return Object.keys(HTTP_AUTH_FLAGS).some((name) => values[name as keyof HttpAuthFlags] !== undefined);
}

/** The HTTP authentication the flags ask for, or undefined (off: no `--jwks`). */
export async function httpAuthOf(
  values: HttpAuthFlags,
  context: HttpAuthContext,
): Promise<HttpAuthOptions | undefined> {
  const { host, port, hint } = context;
  if (values.jwks === undefined) {
    if (values.issuer ?? values.audience ?? values['authorization-server'] ?? values.scope)
      throw usageError('--issuer, --audience, --authorization-server and --scope go with --jwks', hint);
    return undefined;
  }
  if (values.issuer === undefined) throw usageError('--jwks needs --issuer', hint);
  if (values.audience === undefined && port === 0)
    throw usageError('--jwks with --port 0 needs --audience (the URL clients reach this server at)', hint);
  const audience =
    values.audience ??
    `http://${host.includes(':') ? `[${host}]` : host}:${port}${context.endpoint ?? '/mcp'}`;
  const required = values.scope ?? context.defaultScope;
  const { jwtVerifier } = await import('../transports/http/index.js');
  return {
    verifier: jwtVerifier({ jwksUrl: values.jwks, issuer: values.issuer, audience }),
    resource: audience,
    authorizationServers: [values['authorization-server'] ?? values.issuer],
    ...(required ? { requiredScopes: [required] } : {}),
    ...(context.scopesSupported ? { scopesSupported: context.scopesSupported } : {}),
  };
}
