/**
 * Who made a call downstream, as the gateway names it in approvals and audit records: the authenticated
 * principal's subject, and the HTTP session; and the key "approve always" is remembered under.
 * @module
 */
import type { ToolContext } from '../server/index.js';
import type { GatewayCaller } from '../stores/gateway-records.js';

export type { GatewayCaller } from '../stores/gateway-records.js';

/** The caller with neither principal nor session (stdio): one object for every call (a record keeps it). */
const NOBODY: GatewayCaller = Object.freeze({});

export function callerOf(ctx: Pick<ToolContext, 'principal' | 'sessionId'>): GatewayCaller {
  if (!ctx.principal && ctx.sessionId === undefined) return NOBODY;
  const caller: GatewayCaller = {};
  if (ctx.principal) caller.principal = ctx.principal.subject;
  if (ctx.sessionId !== undefined) caller.sessionId = ctx.sessionId;
  return caller;
}

/** The caller as one string: its principal, else its session, else `anonymous` (every anonymous caller). */
export function callerKey(caller: GatewayCaller): string {
  if (caller.principal !== undefined) return `principal:${caller.principal}`;
  if (caller.sessionId !== undefined) return `session:${caller.sessionId}`;
  return 'anonymous';
}
