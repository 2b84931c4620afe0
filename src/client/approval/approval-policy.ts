/**
 * The approval policy: decides `allow`, `ask` or `deny` for a tool call before anything is sent. Rules
 * come first (first match wins); without a matching rule, the tool's annotations decide — but only when
 * the server's annotations are trusted, since the spec says annotations from untrusted servers are
 * untrusted. Read-only tools are allowed; destructive or open-world ones ask (with the spec's defaults:
 * `destructiveHint` and `openWorldHint` default to true, `readOnlyHint` to false).
 * @module
 */
import type { Implementation } from '../../protocol/types/lifecycle.js';
import type { Tool } from '../../protocol/types/tools.js';
import type { ApprovalAction, ApprovalRule, Approver } from './approver.js';
import { matchGlob } from './glob.js';

export interface ApprovalOptions {
  /** Checked in order before anything else; the first rule matching server and tool decides. */
  rules?: readonly ApprovalRule[];
  /**
   * Whether this server's tool annotations may decide (default false: every tool no rule matched asks).
   * A function decides per server, from what it said it is.
   */
  trustAnnotations?: boolean | ((server: Implementation | undefined) => boolean);
  /**
   * Trusted annotations only: what to do with a tool that declares no annotations at all (default: the
   * spec's defaults apply, so it counts as destructive and asks).
   */
  unannotated?: ApprovalAction;
  /** What to do when neither a rule nor trusted annotations decide (default `ask`). */
  defaultAction?: ApprovalAction;
  /** Answers `ask`. Without one, `ask` is a denial (saying to configure an approver). */
  approver?: Approver;
}

export interface PolicyDecision {
  action: ApprovalAction;
  reason: string;
}

/** The policy's decision for `toolName` (the tool itself is fetched only when the rules do not decide). */
export async function decideApproval(
  options: ApprovalOptions,
  server: Implementation | undefined,
  toolName: string,
  tool: () => Promise<Tool>,
): Promise<PolicyDecision> {
  const serverName = server?.name ?? '';
  const rules = options.rules ?? [];
  for (const [index, rule] of rules.entries()) {
    if (rule.server !== undefined && !matchGlob(rule.server, serverName)) continue;
    if (!matchGlob(rule.tool, toolName)) continue;
    const on = rule.server === undefined ? rule.tool : `${rule.server}/${rule.tool}`;
    return { action: rule.action, reason: `rule ${index + 1} (${on}: ${rule.action})` };
  }
  const fallback = options.defaultAction ?? 'ask';
  const trusted =
    typeof options.trustAnnotations === 'function'
      ? options.trustAnnotations(server)
      : options.trustAnnotations === true;
  if (!trusted) {
    return { action: fallback, reason: 'no rule matched and the annotations of this server are not trusted' };
  }
  const annotations = (await tool()).annotations;
  if (annotations === undefined && options.unannotated !== undefined) {
    return { action: options.unannotated, reason: 'the tool declares no annotations' };
  }
  if (annotations?.readOnlyHint === true) return { action: 'allow', reason: 'read-only tool' };
  if (annotations?.destructiveHint !== false) {
    return { action: 'ask', reason: 'the tool may be destructive (destructiveHint)' };
  }
  if (annotations.openWorldHint !== false) {
    return { action: 'ask', reason: 'the tool reaches an open world (openWorldHint)' };
  }
  return { action: fallback, reason: 'a non-destructive tool that is not read-only' };
}
