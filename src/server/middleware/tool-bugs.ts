/**
 * Where a built-in middleware reports a bug in a tool's result (the server's `onToolBug`): the tool-call
 * pipeline registers a reporter for a call that may need one, and the middleware reports through it.
 * @module
 */
import type { ToolCall } from './middleware.js';

const reporters = new WeakMap<ToolCall, (message: string) => void>();

/** Bugs found in `call`'s result go to `report`. */
export function reportToolBugsTo(call: ToolCall, report: (message: string) => void): void {
  reporters.set(call, report);
}

/** Reports a bug in `call`'s result, where a reporter was registered for it. */
export function reportToolBug(call: ToolCall, message: string): void {
  reporters.get(call)?.(message);
}
