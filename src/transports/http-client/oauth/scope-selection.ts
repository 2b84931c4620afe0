/**
 * Which scopes the OAuth client asks for (MCP 2025-11-25 "scope selection strategy", SEP-2350,
 * SEP-2207): the `scope` of the server's challenge, else every scope of its resource metadata's
 * `scopes_supported`, else none (the parameter is left out); on re-authorization, the union of those
 * and what was asked before; `offline_access` added when the authorization server lists it and a
 * refresh token is wanted.
 * @module
 */

/** The scopes of a space-separated `scope` value, in order, without repeats or empty entries. */
export function scopeList(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  return [...new Set(scope.split(/[ \t]+/).filter((item) => item !== ''))];
}

/** Whether every scope of `wanted` is in `held`. */
export function scopeCovers(held: string | undefined, wanted: string | undefined): boolean {
  const have = new Set(scopeList(held));
  return scopeList(wanted).every((item) => have.has(item));
}

export interface ScopeInputs {
  /** The `scope` of the server's `WWW-Authenticate` challenge. */
  challenged?: string | undefined;
  /** The resource metadata's `scopes_supported`. */
  resourceScopes?: readonly string[] | undefined;
  /** What the previous authorization for this server asked for (re-authorization keeps it). */
  previous?: string | undefined;
  /** Scopes the application always asks for. */
  extra?: string | undefined;
  /** The authorization server metadata's `scopes_supported`. */
  serverScopes?: readonly string[] | undefined;
  /** Ask for `offline_access` when the authorization server lists it. */
  offlineAccess: boolean;
}

/** The `scope` to ask for, or `undefined` to leave the parameter out. */
export function selectScope(inputs: ScopeInputs): string | undefined {
  const base =
    inputs.challenged !== undefined && scopeList(inputs.challenged).length > 0
      ? scopeList(inputs.challenged)
      : [...(inputs.resourceScopes ?? [])];
  const scopes = new Set([...scopeList(inputs.previous), ...base, ...scopeList(inputs.extra)]);
  // offline_access only alongside other scopes: alone it would replace the server's default scope.
  if (inputs.offlineAccess && scopes.size > 0 && inputs.serverScopes?.includes('offline_access')) {
    scopes.add('offline_access');
  }
  return scopes.size > 0 ? [...scopes].join(' ') : undefined;
}
