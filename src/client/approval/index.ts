/**
 * Human approval and audit of tool calls on the client.
 * @module
 */
export { decideApproval, type ApprovalOptions, type PolicyDecision } from './approval-policy.js';
export type { ApprovalAction, ApprovalAnswer, ApprovalRequest, ApprovalRule, Approver } from './approver.js';
export {
  argumentsDigest,
  canonicalJson,
  type ClientAuditDecision,
  type ClientAuditRecord,
} from './audit-record.js';
export { matchGlob } from './glob.js';
export { approvalLink } from './approval-link.js';
export { auditLink } from './audit-link.js';
