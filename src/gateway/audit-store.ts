/**
 * The gateway's audit log: one record per call (who called, which upstream and tool, a digest of the
 * arguments — never the arguments —, the policy's decision and who took it, the outcome, the duration)
 * and one per approval decision (who decided, when). Records are kept in a bounded memory store for the
 * decision API (the oldest go first) and handed to sinks: JSON lines to any stream, or a pino logger.
 * @module
 */
import type { GatewayCaller } from './caller.js';

/** How a call was let through, or not. */
export type CallDecision =
  'allowed' | 'approved' | 'approved-always' | 'remembered' | 'denied' | 'expired' | 'withdrawn';

/** How a call ended. */
export type CallOutcome =
  'ok' | 'tool-error' | 'error' | 'refused' | 'unavailable' | 'cancelled' | 'input_required';

export interface GatewayAuditRecord {
  /** Increases by one per record, from 1 at start. */
  seq: number;
  /** When the call arrived, or when the decision was taken (ISO 8601). */
  time: string;
  kind: 'call' | 'decision';
  caller: GatewayCaller;
  upstream: string;
  /** The tool's own name upstream. */
  tool: string;
  /** `sha256:<hex>` of the arguments' canonical JSON. */
  argumentsDigest: string;
  decision: CallDecision;
  /** Why: the policy's rule or the annotations, the decider's reason. */
  reason?: string;
  /** Who decided: `policy`, or the decider (`api-token`, a principal's subject). */
  decidedBy: string;
  approvalId?: string;
  /** Calls: the call's id (as in the `call.*` events and `GET /api/calls/ID`). */
  callId?: number;
  /** Calls: how they ended, and how long they took (ms, arrival to answer). */
  outcome?: CallOutcome;
  durationMs?: number;
}

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

/** A bounded in-memory store of the latest records. */
export class MemoryAuditStore {
  readonly #max: number;
  #records: GatewayAuditRecord[] = [];
  #seq = 0;

  constructor(maxRecords: number) {
    this.#max = Math.max(1, Math.floor(maxRecords));
  }

  /** Stores a record (numbering it) and returns it. */
  append(record: Omit<GatewayAuditRecord, 'seq'>): GatewayAuditRecord {
    const stored = { seq: ++this.#seq, ...record };
    this.#records.push(stored);
    // Trimmed in batches: one splice per `max / 4` records, not one shift per record.
    if (this.#records.length > this.#max + Math.ceil(this.#max / 4)) {
      this.#records = this.#records.slice(-this.#max);
    }
    return stored;
  }

  /** The latest `limit` records (default all kept), oldest first; `after`: only those with a higher `seq`. */
  list(options: { limit?: number; after?: number } = {}): GatewayAuditRecord[] {
    const kept = this.#records.length > this.#max ? this.#records.slice(-this.#max) : this.#records;
    const after = options.after ?? 0;
    const newer = after > 0 ? kept.filter((record) => record.seq > after) : kept;
    const limit = Math.min(options.limit ?? this.#max, this.#max);
    return newer.slice(-limit);
  }
}
