/**
 * A person's decision on a pending approval (`Approvals.decide`), and what a call that waits for one asks
 * for (`Approvals.ask`).
 * @module
 */
import type { PendingApproval } from '../stores/gateway-records.js';

export interface ApprovalDecision {
  approve: boolean;
  /** Approve this and every later call of this tool by this caller (as long as grants last, or `alwaysForMs`). */
  always?: boolean;
  /** How long "always" lasts, in ms: a positive integer, at most `MAX_GRANT_MS` (365 days). */
  alwaysForMs?: number;
  /** A denial's reason, which the model sees. */
  reason?: string;
  /** The digest of the arguments the decider saw; refused when it is not the call's. */
  argumentsDigest?: string;
  /** Who decides (a principal's subject, `api-token`). */
  decidedBy: string;
}

export type ApprovalRequest = Omit<PendingApproval, 'id' | 'createdAt' | 'expiresAt'>;
