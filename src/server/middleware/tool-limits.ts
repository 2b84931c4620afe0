/**
 * What a tool may declare about how it is run (`server.tool(name, { timeout, rateLimit, … })`), as the
 * tool-call middleware reads it from `call.tool.limits`: the built-in timeout, rate limit, concurrency cap
 * and sanitization. None of it is sent to clients. It lives here, beside the middleware that reads it, so
 * that the tool definition (which extends it) imports the middleware and never the other way round.
 * @module
 */
import type { TokenBucket } from '../../stores/rate-limit-store.js';

/** What a tool may declare about how it is run; none of it is sent to clients. */
export interface ToolLimits {
  /** Execution timeout in ms (default: the server's `toolTimeout`, 60 s); 0: none. */
  timeout?: number;
  /**
   * A token bucket per caller for this tool (default: the server's `rateLimit.perTool`, none unless set);
   * `false` exempts the tool from per-tool limits.
   */
  rateLimit?: TokenBucket | false;
  /** Calls of this tool at once (default: the server's `concurrency.perTool`, no cap unless set). */
  maxConcurrency?: number;
  /**
   * Its output carries text from untrusted sources (web pages, files, mail, other agents): text blocks are
   * wrapped in visible delimiters so the model can tell data from instructions (default false).
   */
  untrustedOutput?: boolean;
}
