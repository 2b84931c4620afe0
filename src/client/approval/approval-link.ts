/**
 * The approval gate as a client link: asks the policy (and, on `ask`, the approver) before each
 * `tools/call`, refuses with ClientError TOOL_CALL_DENIED before anything is sent, remembers `always`
 * answers per server + tool for the client's lifetime, and notes its decision in the call's verdict (which
 * the audit link, outside it, records).
 * @module
 */
import { LocalErrorCode, errorMessage } from '../../protocol/errors.js';
import { ClientError } from '../client-error.js';
import type { OutgoingToolCall, ToolCallLink, ToolCallVerdict } from '../links/client-link.js';
import { decideApproval, type ApprovalOptions } from './approval-policy.js';

/** A link that lets a tool call through only when `approval` says so. */
export function approvalLink(approval: ApprovalOptions): ToolCallLink {
  const remembered = new Set<string>();
  return async (call, next) => {
    const verdict = await decide(approval, remembered, call);
    call.verdict.decision = verdict.decision;
    call.verdict.reason = verdict.reason;
    if (verdict.decision === 'denied') {
      const server = call.server?.name;
      throw new ClientError(
        LocalErrorCode.ToolCallDenied,
        `Call of tool ${call.name} denied: ${verdict.reason}`,
        {
          details: { tool: call.name, server, reason: verdict.reason },
        },
      );
    }
    call.verdict.approvedAt = performance.now();
    return next();
  };
}

async function decide(
  approval: ApprovalOptions,
  remembered: Set<string>,
  call: OutgoingToolCall,
): Promise<ToolCallVerdict> {
  const key = `${call.server?.name ?? ''}\u0000${call.name}`;
  if (remembered.has(key)) return { decision: 'remembered', reason: 'approved always earlier' };
  const { action, reason } = await decideApproval(approval, call.server, call.name, () => call.tool());
  if (action === 'allow') return { decision: 'allowed', reason };
  if (action === 'deny') return { decision: 'denied', reason };
  if (!approval.approver) {
    return {
      decision: 'denied',
      reason: `${reason}; approval is needed but no approver is configured (set approval.approver)`,
    };
  }
  let answer: unknown;
  try {
    answer = await approval.approver({
      server: call.server,
      tool: await call.tool(),
      arguments: call.arguments,
      reason,
    });
  } catch (error) {
    return { decision: 'denied', reason: `${reason}; the approver failed: ${errorMessage(error)}` };
  }
  if (answer === 'once') return { decision: 'asked-once', reason: `${reason}; approved once` };
  if (answer === 'always') {
    remembered.add(key);
    return { decision: 'asked-always', reason: `${reason}; approved always` };
  }
  return { decision: 'denied', reason: `${reason}; the approver said no` };
}
