/**
 * A server's tool-call chain: the built-in middleware its options turn on, then the middleware added
 * with `server.use()`, in the order added, then the handler. The built-ins, outermost first:
 *
 * | built-in | default | option |
 * |---|---|---|
 * | audit log | off (needs a sink) | `audit: { sink }` |
 * | (access control: refused calls are recorded here as `denied`; see `refuse`) | | |
 * | rate limits | a bucket per caller `{ burst: 20_000, perSecond: 20_000 }` | `rateLimit` |
 * | concurrency cap | none unless a tool sets `maxConcurrency` | `concurrency` |
 * | execution timeout | 60 s | `toolTimeout` |
 * | output sanitization | on: media check, secret redaction, 1 MiB text / 2 MiB binary | `sanitize` |
 *
 * So the audit log sees every decision; limits refuse a call before it costs anything; the timeout
 * covers user middleware and the handler; sanitization sees the final result of both.
 * @module
 */
import type { CallToolResult } from '../../protocol/types/tools.js';
import { audit, type AuditOptions } from './audit.js';
import type { MaybePromise } from '../../protocol/promise-like.js';
import { compose, runChain, type InlineMiddleware } from './compose.js';
import { concurrencyLimit, type ConcurrencyOptions } from './concurrency-limit.js';
import type { CalledTool, ToolCall, ToolMiddleware } from './middleware.js';
import { inlineRateLimit, type RateLimitOptions } from './rate-limit.js';
import { inlineSanitize, type SanitizeOptions } from './sanitize.js';
import { DEFAULT_TOOL_TIMEOUT_MS, inlineTimeout } from './timeout.js';

/** The server options that configure the built-ins (each `false` turns one off). */
export interface ToolChainOptions {
  /** Token buckets on tool calls (default: a bucket per caller, `{ burst: 20_000, perSecond: 20_000 }`). */
  rateLimit?: RateLimitOptions | false;
  /** Caps on concurrent calls per tool (default: only tools that set `maxConcurrency`). */
  concurrency?: ConcurrencyOptions | false;
  /**
   * The execution timeout of tool calls in ms (default 60,000); a tool's own `timeout` wins. Tools
   * declared for tasks have none unless they set one.
   */
  toolTimeout?: number | false;
  /** Output sanitization (default on; see `SanitizeOptions`). */
  sanitize?: SanitizeOptions | false;
  /** The audit log: one record per call, to `sink` (default: none). */
  audit?: AuditOptions;
}

export class ToolChain {
  readonly #builtIns: readonly InlineMiddleware<ToolCall, CallToolResult>[];
  readonly #audit: readonly ToolMiddleware[];
  readonly #added: ToolMiddleware[] = [];
  /** The default execution timeout in ms (0: none but a tool's own); undefined: the built-in is off. */
  readonly #timeoutMs: number | undefined;

  constructor(options: ToolChainOptions = {}) {
    const builtIns: InlineMiddleware<ToolCall, CallToolResult>[] = [];
    const audited = options.audit ? [audit(options.audit)] : [];
    this.#audit = audited;
    // The audit log waits for the rest of the chain anyway (it records the outcome): a promise for it.
    for (const log of audited) builtIns.push((call, next) => log(call, () => Promise.resolve(next())));
    if (options.rateLimit !== false) builtIns.push(inlineRateLimit(options.rateLimit));
    if (options.concurrency !== false) builtIns.push(concurrencyLimit(options.concurrency));
    if (options.toolTimeout !== false) builtIns.push(inlineTimeout({ defaultMs: options.toolTimeout }));
    if (options.sanitize !== false) builtIns.push(inlineSanitize(options.sanitize));
    this.#builtIns = builtIns;
    this.#timeoutMs =
      options.toolTimeout === false ? undefined : (options.toolTimeout ?? DEFAULT_TOOL_TIMEOUT_MS);
  }

  /**
   * Whether a middleware of this chain may abort a call of `tool` while its handler runs: the execution
   * timeout (when it applies to the tool), or any middleware added with `use()` (it may call `abort`).
   * The other built-ins (audit, rate limits, concurrency cap, sanitization) never do; a call no middleware
   * can abort gives its handler the request's own context (see `startToolCall`).
   */
  mayAbort(tool: CalledTool): boolean {
    if (this.#added.length > 0) return true;
    if (this.#timeoutMs === undefined) return false;
    // As the timeout middleware reads it: a task tool has only its own timeout; 0 is none.
    const ms = tool.limits.timeout ?? (tool.task ? 0 : this.#timeoutMs);
    return ms > 0;
  }

  /** Adds a middleware after the built-ins and those added before it. */
  use(middleware: ToolMiddleware): void {
    if (typeof middleware !== 'function') throw new TypeError('A tool middleware must be a function');
    this.#added.push(middleware);
  }

  /**
   * A call refused before the chain (access control): only the audit log sees it, as `denied`; the
   * returned promise rejects with `error`.
   */
  refuse(call: ToolCall, error: Error): Promise<CallToolResult> {
    return compose(this.#audit, () => {
      call.decision = 'denied';
      return Promise.reject(error);
    })(call);
  }

  /**
   * Runs `call` through the chain, `handler` innermost: the result itself when the handler answered
   * synchronously and no middleware waited (see `runChain`), else its promise.
   */
  run(call: ToolCall, handler: () => MaybePromise<CallToolResult>): MaybePromise<CallToolResult> {
    return runChain(this.#builtIns, this.#added, call, handler);
  }
}
