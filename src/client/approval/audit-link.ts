/**
 * The client audit as a link, outermost in the tool-call chain: one record per call with the decision
 * the links inside it took (the approval link's, or a refusal of the application's own), a digest of the
 * arguments as the caller gave them (never the arguments), the duration and the outcome. A call refused
 * before it ran (verdict `denied`) gets no duration and no outcome.
 * @module
 */
import { ProtocolError, ToolwireError, asError } from '../../protocol/errors.js';
import type { ToolCallLink } from '../links/client-link.js';
import { argumentsDigest, type ClientAuditRecord } from './audit-record.js';

/** A link that hands one record per tool call to `onAudit` (a throwing sink goes to `onError`). */
export function auditLink(
  onAudit: (record: ClientAuditRecord) => void,
  onError: (error: Error) => void,
): ToolCallLink {
  const write = (record: ClientAuditRecord): void => {
    try {
      onAudit(record);
    } catch (error) {
      onError(asError(error));
    }
  };
  return async (call, next) => {
    const time = new Date().toISOString();
    const digest = await argumentsDigest(call.arguments);
    const started = performance.now();
    const record = (): ClientAuditRecord => ({
      time,
      server: call.server?.name,
      tool: call.name,
      decision: call.verdict.decision,
      reason: call.verdict.reason,
      argumentsDigest: digest,
    });
    try {
      const result = await next();
      write({
        ...record(),
        durationMs: elapsed(call.verdict.approvedAt ?? started),
        outcome: result.isError ? 'tool-error' : 'ok',
      });
      return result;
    } catch (error) {
      if (call.verdict.decision === 'denied') {
        write(record());
        throw error;
      }
      const code = error instanceof ProtocolError || error instanceof ToolwireError ? error.code : undefined;
      write({
        ...record(),
        durationMs: elapsed(call.verdict.approvedAt ?? started),
        outcome: 'error',
        ...(code === undefined ? {} : { errorCode: code }),
      });
      throw error;
    }
  };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
