/**
 * The gateway's audit log: one record per call (who called, which upstream and tool, a digest of the
 * arguments — never the arguments —, the policy's decision and who took it, the outcome, the duration)
 * and one per approval decision (who decided, when). Records are kept in an `AuditStore` for the decision
 * API (memory or Redis, bounded: the oldest go first) and handed to sinks: JSON lines to any stream, or a
 * pino logger.
 * @module
 */
import type { GatewayAuditRecord } from '../stores/gateway-records.js';

export type { CallDecision, CallOutcome, GatewayAuditRecord } from '../stores/gateway-records.js';
export { MemoryAuditStore, type AuditStore } from '../stores/audit-store.js';

/** Where records go besides the memory store: `write` must not throw (a sink that does is reported, not fatal). */
export interface GatewayAuditSink {
  write(record: GatewayAuditRecord): void;
}

/** Writes each record as one line of JSON to a stream (a file opened for appending, stderr). */
export function gatewayJsonLinesSink(stream: { write(chunk: string): unknown }): GatewayAuditSink {
  return { write: (record) => void stream.write(`${JSON.stringify(record)}\n`) };
}

/** Hands each record to a pino logger (or anything with `info(object, message)`). */
export function gatewayPinoSink(logger: { info(object: object, message?: string): void }): GatewayAuditSink {
  return {
    write: ({ time, ...record }) =>
      logger.info({ ...record, at: time }, `gateway ${record.kind}: ${record.decision}`),
  };
}
