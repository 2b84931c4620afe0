/**
 * The gateway's audit trail: each record (a call's, or a person's decision on an approval) stored — in
 * memory, or shared by the instances on Redis — then handed to the sinks and to the listeners of `audit`
 * with its number. A record that cannot be stored still reaches them (unnumbered), and the failure is said:
 * a store that timed out may still store it, numbered, when it runs the write late (a Redis that thaws).
 * @module
 */
import { errorMessage } from '../index.js';
import type { AuditStore } from '../stores/audit-store.js';
import { digestOfText } from '../stores/digest-of-text.js';
import type { ApprovalOutcome } from './approvals.js';
import type { ListedApproval } from '../stores/listed-approval.js';
import type { GatewayAuditRecord, GatewayAuditSink } from './gateway-audit-sink.js';
import type { GatewayEvents } from './gateway-events.js';

export class AuditTrail {
  /** Where the records are stored (the stores the configuration's `redis` opened replace the first). */
  store: AuditStore;
  readonly #sinks: readonly GatewayAuditSink[] | undefined;
  readonly #events: GatewayEvents;
  /** Says a line (the gateway's `onLog`, else stderr). */
  readonly #line: (line: string) => void;

  constructor(
    store: AuditStore,
    sinks: readonly GatewayAuditSink[] | undefined,
    events: GatewayEvents,
    line: (line: string) => void,
  ) {
    this.store = store;
    this.#sinks = sinks;
    this.#events = events;
    this.#line = line;
  }

  /** Records a settled approval: who decided what (the gateway, when it timed out or was withdrawn). */
  decided(approval: ListedApproval, outcome: ApprovalOutcome): void {
    const record: Omit<GatewayAuditRecord, 'seq'> = {
      time: outcome.decidedAt,
      kind: 'decision',
      caller: approval.caller,
      upstream: approval.upstream,
      tool: approval.tool,
      argumentsDigest: approval.argumentsDigest,
      decision:
        outcome.decision === 'approved'
          ? outcome.always
            ? 'approved-always'
            : 'approved'
          : outcome.decision,
      decidedBy: ('decidedBy' in outcome ? outcome.decidedBy : undefined) ?? 'gateway',
      approvalId: approval.id,
    };
    // The call that asked (its own record, written as it ends, has the same approval id and call id).
    if (approval.callId !== undefined) record.callId = approval.callId;
    const reason = 'reason' in outcome ? outcome.reason : undefined;
    this.record(reason === undefined ? record : { ...record, reason });
  }

  /**
   * Stores an audit record, then hands it to the sinks and the listeners (with its number). `argumentsText`
   * (a call's arguments as canonical JSON) stands for the record's `argumentsDigest` when given: a record
   * nothing waits for has its digest computed when it is first read (by a store that can), else now.
   */
  record(record: Omit<GatewayAuditRecord, 'seq'>, argumentsText?: string): void {
    // No sink and no listener (a gateway no console watches): the record is stored, nothing waits for it.
    const unwatched = !this.#sinks?.length && !this.#events.wants('audit');
    if (unwatched && argumentsText !== undefined && this.store.appendUndigested) {
      this.store.appendUndigested(record, argumentsText)?.catch(this.#notStored);
      return;
    }
    if (argumentsText !== undefined) record.argumentsDigest = digestOfText(argumentsText);
    if (unwatched) {
      this.store.append(record).catch(this.#notStored);
      return;
    }
    const written = (stored: GatewayAuditRecord) => {
      for (const sink of this.#sinks ?? []) {
        try {
          sink.write(stored);
        } catch (error) {
          this.#line(`audit sink failed: ${errorMessage(error)}`);
        }
      }
      if (this.#events.wants('audit')) this.#events.emit({ type: 'audit', record: stored });
    };
    this.store.append(record).then(written, (error: unknown) => {
      // The sinks still get it (unnumbered: seq 0), and the failure is said.
      this.#notStored(error);
      written({ ...record, seq: 0 });
    });
  }

  readonly #notStored = (error: unknown): void => {
    // A write that timed out may still run (Redis frozen with it on its socket runs it when it thaws): the
    // record is then stored and numbered after all, which this line must not deny.
    this.#line(
      `audit record not stored in time (the store may still store it, numbered, if it runs the write late): ${errorMessage(error)}`,
    );
  };
}
