/**
 * Who may see and call which tool. A tool declares what it needs (`access: { scopes, roles }`: every
 * scope, and one of the roles), and the server may add a policy function over the principal and the
 * tool. A tool the caller may not call is absent from its `tools/list` and refused on `tools/call`:
 * - missing scopes only → `-31403` Forbidden with `data: { requiredScopes, missingScopes }`, so the client
 *   can ask for a token with more scope (the HTTP transport answers 403 `insufficient_scope` before that);
 * - refused by roles or the policy → the same `-32602` "Unknown tool" as a tool that does not exist, so
 *   the answer does not tell a caller which tools are there.
 *
 * Anonymous callers (no authentication) hold no scopes and no roles: a tool that declares any is
 * hidden from them. Servers with no declared access and no policy pay nothing for this.
 * @module
 */
import { ErrorCode, LocalErrorCode, ProtocolError } from '../../protocol/errors.js';
import type { Tool } from '../../protocol/types/tools.js';
import { ServerError } from '../server-error.js';
import type { Principal } from './principal.js';

/** What a tool needs from its caller; not sent to clients. */
export interface ToolAccess {
  /** Every one of these scopes. */
  scopes?: readonly string[];
  /** At least one of these roles. */
  roles?: readonly string[];
}

/** The tool a policy decides about (a registered tool). */
export interface AccessTarget {
  readonly name: string;
  /** The tool as listed (every revision's fields: title, annotations, `_meta`…). */
  readonly tool: Tool;
  readonly access: ToolAccess | undefined;
}

/**
 * Decides whether `principal` (undefined: anonymous) may see and call `tool`, after the tool's own
 * `access` allowed it. Runs for every tool on `tools/list`: keep it fast and free of I/O.
 */
export type AccessPolicy = (principal: Principal | undefined, tool: AccessTarget) => boolean;

type Entry = AccessTarget;

/** The tools one caller sees: `key` names the set (equal keys, equal sets, for one registry version). */
export interface VisibleTools<T> {
  readonly key: string;
  readonly tools: readonly T[];
}

/** Checks and freezes a tool's `access`; throws a ServerError for a malformed one. */
export function checkAccess(access: ToolAccess | undefined, what: string): ToolAccess | undefined {
  if (access === undefined) return undefined;
  const list = (value: unknown, field: string): readonly string[] | undefined => {
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.length > 0)) {
      throw new ServerError(
        LocalErrorCode.InvalidDefinition,
        `${what}: access.${field} must be an array of non-empty strings`,
      );
    }
    return Object.freeze([...(value as string[])]);
  };
  const scopes = list(access.scopes, 'scopes');
  const roles = list(access.roles, 'roles');
  const out: ToolAccess = {};
  if (scopes?.length) out.scopes = scopes;
  if (roles?.length) out.roles = roles;
  return out.scopes || out.roles ? Object.freeze(out) : undefined;
}

/** The scopes of `access` that `principal` lacks (all of them for an anonymous caller). */
export function missingScopes(principal: Principal | undefined, access: ToolAccess | undefined): string[] {
  const needed = access?.scopes;
  if (!needed) return [];
  const held = principal?.scopes ?? [];
  return needed.filter((scope) => !held.includes(scope));
}

function hasRole(principal: Principal | undefined, access: ToolAccess | undefined): boolean {
  const roles = access?.roles;
  if (!roles) return true;
  return principal?.roles?.some((role) => roles.includes(role)) ?? false;
}

export class AccessControl {
  readonly #policy: AccessPolicy | undefined;
  #restrictedAt = -1;
  #restricted = false;

  constructor(policy?: AccessPolicy) {
    this.#policy = policy;
  }

  /** Whether any tool of this registry version can be refused to anyone. */
  restricts(tools: readonly Entry[], version: number): boolean {
    if (this.#policy) return true;
    if (this.#restrictedAt !== version) {
      this.#restricted = tools.some((tool) => tool.access !== undefined);
      this.#restrictedAt = version;
    }
    return this.#restricted;
  }

  allows(principal: Principal | undefined, tool: Entry): boolean {
    if (missingScopes(principal, tool.access).length > 0) return false;
    if (!hasRole(principal, tool.access)) return false;
    return this.#policy ? this.#policy(principal, tool) : true;
  }

  /** The error a refused `tools/call` gets; undefined when the call may go ahead. */
  refusal(principal: Principal | undefined, tool: Entry): ProtocolError | undefined {
    if (tool.access === undefined && !this.#policy) return undefined;
    // Refused by role or policy: not found. Refused for scopes only, which a client can do something
    // about (step-up): say which.
    const permitted = hasRole(principal, tool.access) && (this.#policy?.(principal, tool) ?? true);
    if (!permitted) return new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${tool.name}`);
    const missing = missingScopes(principal, tool.access);
    if (missing.length === 0) return undefined;
    return new ProtocolError(
      ErrorCode.Forbidden,
      `Forbidden: tool ${tool.name} needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(' ')}`,
      { requiredScopes: [...(tool.access?.scopes ?? [])], missingScopes: missing },
    );
  }

  /** The tools `principal` may see, in registry order, with a key for caching their pages. */
  visible<T extends Entry>(
    tools: readonly T[],
    version: number,
    principal: Principal | undefined,
  ): VisibleTools<T> {
    if (!this.restricts(tools, version)) return { key: '', tools };
    const shown: T[] = [];
    const hidden: number[] = [];
    tools.forEach((tool, index) => {
      if (this.allows(principal, tool)) shown.push(tool);
      else hidden.push(index);
    });
    return hidden.length === 0 ? { key: '', tools } : { key: hidden.join(','), tools: shown };
  }
}
