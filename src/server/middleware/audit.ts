/**
 * The audit log of tool calls: one structured record per call that reaches the chain, written to an
 * {@link AuditSink} once the call is over (refused, failed, timed out or answered). Arguments are
 * logged as a SHA-256 digest of their canonical JSON (default), or redacted (secret patterns, and
 * whole values under keys like `password` or `token`), or not at all; results only as a digest; error
 * messages redacted. So secrets never reach the log.
 *
 * Sinks: `jsonLinesSink(stream)` writes one JSON object per line to any `{ write(string) }` (a file
 * stream, `process.stderr`); `pinoSink(logger)` hands records to a pino logger (or anything with
 * `info(obj, msg)`), the record's `time` renamed `startedAt` (pino writes its own `time`).
 *
 * @example
 * ```ts
 * const server = new Server(info, { audit: { sink: jsonLinesSink(createWriteStream('audit.log', { flags: 'a' })) } });
 * const server = new Server(info, { audit: { sink: pinoSink(pino()), arguments: 'redacted' } });
 * ```
 * @module
 */
import { ProtocolError, errorMessage } from '../../protocol/errors.js';
import type { RequestId } from '../../protocol/jsonrpc.js';
import { canonicalJson, utf8 } from '../input-required/digest.js';
import { InputRequiredSignal } from '../input-required/input-round.js';
import type { CallDecision, ToolMiddleware } from './middleware.js';
import { DEFAULT_SECRET_PATTERNS, SECRET_KEY, redactJson, redactText } from './redact.js';

/** How a call ended: a result, an `isError` result, a JSON-RPC error, or (stateless era) input_required. */
export type CallOutcome = 'ok' | 'isError' | 'error' | 'input_required';

export interface AuditRecord {
  /** When the call entered the chain (ISO 8601). */
  time: string;
  /** The caller's subject (never its credential); null when anonymous. */
  principal: string | null;
  session: string | null;
  requestId: RequestId;
  protocolVersion: string;
  tool: string;
  /** `sha256:<hex>` of the arguments' canonical JSON (with `arguments: 'digest'`). */
  argumentsDigest?: string;
  /** The arguments, redacted (with `arguments: 'redacted'`). */
  arguments?: unknown;
  decision: CallDecision;
  durationMs: number;
  outcome: CallOutcome;
  /** `sha256:<hex>` of the result's canonical JSON, as sent (after sanitization). */
  resultDigest?: string;
  /** The JSON-RPC error, message redacted (outcome `error`). */
  error?: { code?: number; message: string };
}

export interface AuditSink {
  write(record: AuditRecord): void | Promise<void>;
}

export interface AuditOptions {
  sink: AuditSink;
  /** How arguments are logged (default `digest`). */
  arguments?: 'digest' | 'redacted' | 'none';
  /** Secret patterns for redacted arguments and error messages (default `DEFAULT_SECRET_PATTERNS`). */
  redact?: readonly RegExp[];
  /** A sink that throws or rejects (default: a line on stderr). The call is never affected. */
  onError?: (error: unknown) => void;
}

/** `sha256:<hex>` of a value's canonical JSON (object keys sorted). */
export async function sha256Digest(value: unknown): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(canonicalJson(value))));
  return `sha256:${Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Writes each record as one line of JSON. */
export function jsonLinesSink(stream: { write(chunk: string): unknown }): AuditSink {
  return { write: (record) => void stream.write(`${JSON.stringify(record)}\n`) };
}

/**
 * Hands each record to a pino logger (`logger.info(record, message)`); no import of pino needed. pino
 * writes a `time` of its own (when the line is logged) and would not replace the record's: a line would
 * carry two `time` keys, which JSON parsers read as the last one and log shippers reject or mangle. The
 * record's `time` (when the call entered the chain) is passed as `startedAt` instead.
 */
export function pinoSink(
  logger: { info(obj: object, msg?: string): void },
  message = 'tools/call',
): AuditSink {
  return {
    write: ({ time, ...record }) => logger.info({ startedAt: time, ...record }, message),
  };
}

export function audit(options: AuditOptions): ToolMiddleware {
  const mode = options.arguments ?? 'digest';
  const patterns = options.redact ?? DEFAULT_SECRET_PATTERNS;
  const onError =
    options.onError ??
    ((error: unknown) => console.error(`[toolwire] audit sink failed: ${errorMessage(error)}`));

  const write = (record: AuditRecord) => {
    try {
      Promise.resolve(options.sink.write(record)).catch(onError);
    } catch (error) {
      onError(error);
    }
  };

  return async (call, next) => {
    const time = new Date().toISOString();
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
    const record = async (
      durationMs: number,
      outcome: CallOutcome,
      extra: Partial<AuditRecord>,
    ): Promise<void> => {
      const args =
        mode === 'digest'
          ? { argumentsDigest: await sha256Digest(call.arguments) }
          : mode === 'redacted'
            ? { arguments: redactJson(call.arguments, patterns, SECRET_KEY) }
            : {};
      write({
        time,
        principal: call.principal?.subject ?? null,
        session: call.sessionId ?? null,
        requestId: call.requestId,
        protocolVersion: call.protocolVersion,
        tool: call.tool.name,
        ...args,
        decision: call.decision,
        durationMs,
        outcome,
        ...extra,
      });
    };

    try {
      const result = await next();
      const durationMs = elapsed();
      await record(durationMs, result.isError ? 'isError' : 'ok', {
        resultDigest: await sha256Digest(result),
      });
      return result;
    } catch (error) {
      const durationMs = elapsed();
      if (error instanceof InputRequiredSignal) await record(durationMs, 'input_required', {});
      else {
        const message = redactText(errorMessage(error), patterns);
        await record(durationMs, 'error', {
          error: error instanceof ProtocolError ? { code: error.code, message } : { message },
        });
      }
      throw error;
    }
  };
}
