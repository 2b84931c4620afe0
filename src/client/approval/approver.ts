/**
 * The approver: who answers when the approval policy says "ask" — a person in a UI, a terminal prompt,
 * or code. It sees the tool as the server listed it and the exact arguments the call will send.
 * @module
 */
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { Implementation } from '../../protocol/types/lifecycle.js';
import type { Tool } from '../../protocol/types/tools.js';

/** What an approval rule or the policy decides for a call. */
export type ApprovalAction = 'allow' | 'ask' | 'deny';

/** The approver's answer: run it this time, run it and do not ask again for this server + tool, or refuse. */
export type ApprovalAnswer = 'once' | 'always' | 'deny';

export interface ApprovalRequest {
  /** The server, as it introduced itself (undefined before it did). */
  server: Implementation | undefined;
  /** The tool as listed by the server (name, title, description, annotations); only a name when unlisted. */
  tool: Tool;
  /** The exact arguments the call will send. */
  arguments: JsonObject;
  /** Why the policy asks, e.g. `destructive tool` or `annotations of an untrusted server`. */
  reason: string;
}

/** Answers "ask" decisions. A rejection counts as a denial. */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

/** A rule, written as data: the first rule whose patterns match the server name and tool name wins. */
export interface ApprovalRule {
  /** Glob on the server's name (`serverInfo.name`); absent matches every server. */
  server?: string;
  /** Glob on the tool name, e.g. `fs.*`, `*_delete`, `*`. */
  tool: string;
  action: ApprovalAction;
}
