/**
 * The gate every `tools/call` of a client passes when it has an approval policy or an audit sink: it asks
 * the policy (and, on `ask`, the approver), refuses with ClientError TOOL_CALL_DENIED before anything is
 * sent, remembers `always` answers per server + tool for the client's lifetime, and writes one audit record
 * per call.
 * @module
 */
import { LocalErrorCode, ProtocolError, ToolwireError, errorMessage } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import type { Implementation } from '../../protocol/types/lifecycle.js';
import type { CallToolResult, Tool } from '../../protocol/types/tools.js';
import { ClientError } from '../client-error.js';
import { decideApproval, type ApprovalOptions } from './approval-policy.js';
import { argumentsDigest, type ClientAuditDecision, type ClientAuditRecord } from './audit-record.js';

export interface GateContext {
  server: Implementation | undefined;
  /** The tool as listed (fetched only when needed); an unlisted tool is just its name. */
  tool: () => Promise<Tool>;
}

export class ToolCallGate {
  readonly #approval: ApprovalOptions | undefined;
  readonly #onAudit: ((record: ClientAuditRecord) => void) | undefined;
  readonly #onError: (error: Error) => void;
  readonly #remembered = new Set<string>();

  constructor(
    approval: ApprovalOptions | undefined,
    onAudit: ((record: ClientAuditRecord) => void) | undefined,
    onError: (error: Error) => void,
  ) {
    this.#approval = approval;
    this.#onAudit = onAudit;
    this.#onError = onError;
  }

  /** Runs `call` if the policy lets it through; throws ClientError TOOL_CALL_DENIED otherwise. */
  async run(
    name: string,
    args: JsonObject,
    context: GateContext,
    call: () => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    const time = new Date().toISOString();
    const { decision, reason } = await this.#decide(name, args, context);
    const record: ClientAuditRecord = {
      time,
      server: context.server?.name,
      tool: name,
      decision,
      reason,
      argumentsDigest: this.#onAudit ? await argumentsDigest(args) : '',
    };
    if (decision === 'denied') {
      this.#audit(record);
      throw new ClientError(LocalErrorCode.ToolCallDenied, `Call of tool ${name} denied: ${reason}`, {
        details: { tool: name, server: context.server?.name, reason },
      });
    }
    const started = performance.now();
    try {
      const result = await call();
      this.#audit({ ...record, durationMs: elapsed(started), outcome: result.isError ? 'tool-error' : 'ok' });
      return result;
    } catch (error) {
      const code = error instanceof ProtocolError || error instanceof ToolwireError ? error.code : undefined;
      this.#audit({
        ...record,
        durationMs: elapsed(started),
        outcome: 'error',
        ...(code === undefined ? {} : { errorCode: code }),
      });
      throw error;
    }
  }

  async #decide(
    name: string,
    args: JsonObject,
    context: GateContext,
  ): Promise<{ decision: ClientAuditDecision; reason: string }> {
    const approval = this.#approval;
    if (!approval) return { decision: 'allowed', reason: 'no approval policy' };
    const key = `${context.server?.name ?? ''}\u0000${name}`;
    if (this.#remembered.has(key)) return { decision: 'remembered', reason: 'approved always earlier' };
    const { action, reason } = await decideApproval(approval, context.server, name, context.tool);
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
        server: context.server,
        tool: await context.tool(),
        arguments: args,
        reason,
      });
    } catch (error) {
      return { decision: 'denied', reason: `${reason}; the approver failed: ${errorMessage(error)}` };
    }
    if (answer === 'once') return { decision: 'asked-once', reason: `${reason}; approved once` };
    if (answer === 'always') {
      this.#remembered.add(key);
      return { decision: 'asked-always', reason: `${reason}; approved always` };
    }
    return { decision: 'denied', reason: `${reason}; the approver said no` };
  }

  #audit(record: ClientAuditRecord): void {
    if (!this.#onAudit) return;
    try {
      this.#onAudit(record);
    } catch (error) {
      this.#onError(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
