/**
 * How a built-in middleware reports a bug in a tool's result (sanitization: redacted structured content that
 * no longer fits the outputSchema) to the server's `onToolBug`, as the pipeline reports the bugs it finds
 * itself: every call the chain starts carries the hook from where it started (`CallOrigin.onToolBug`,
 * tool-call.ts) under {@link REPORT_BUG}. A leaf module, so the middleware need not import the pipeline.
 * @module
 */
import type { ToolCall } from './middleware.js';

/** The method, on the calls the chain starts, that reports a bug in the call's result to `onToolBug`. */
export const REPORT_BUG: unique symbol = Symbol('toolwire.reportBug');

/** A call that knows where a bug in its result goes. */
export interface BugReportingCall {
  [REPORT_BUG](message: string): void;
}

/** Reports a bug in `call`'s result; nothing for a `ToolCall` the chain did not start. */
export function reportToolBug(call: ToolCall, message: string): void {
  (call as Partial<BugReportingCall>)[REPORT_BUG]?.(message);
}
