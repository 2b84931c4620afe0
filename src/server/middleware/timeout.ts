/**
 * The execution timeout of tool calls: past it, the handler's signal is aborted (reason: a
 * `TimeoutError` DOMException) and the call ends at once with an `isError` result saying so. A handler
 * that ignores its signal may still be running; whatever it returns later is dropped. Time the handler
 * spends waiting for the client's input (elicitation, sampling, roots) does not count: a person
 * answering a form is not a hung tool. Tools declared for tasks get no default timeout, only their own.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import { toolError } from '../results.js';
import { ServerError } from '../server-error.js';
import type { ToolMiddleware } from './middleware.js';

export interface TimeoutOptions {
  /** The timeout of tools that declare none, in ms (default 60,000; 0: none). */
  defaultMs?: number;
}

export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

export function checkTimeout(value: number | undefined, what: string): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
    throw new ServerError(LocalErrorCode.InvalidDefinition, `${what} must be a number of ms ≥ 0`);
  }
}

export function timeout(options: TimeoutOptions = {}): ToolMiddleware {
  const defaultMs = options.defaultMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  checkTimeout(defaultMs, 'toolTimeout');

  return (call, next) => {
    // A tool declared for tasks is long-running by design: only its own timeout applies.
    const ms = call.tool.limits.timeout ?? (call.tool.task ? 0 : defaultMs);
    if (ms <= 0) return next();
    const started = performance.now();
    return new Promise<CallToolResult>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const finish = () => {
        settled = true;
        clearTimeout(timer);
      };
      const check = () => {
        if (settled) return;
        const used = performance.now() - started - call.inputWaitMs();
        // While the handler waits for input its clock stands still: look again later.
        if (call.waitingForInput || used < ms) return arm(Math.max(ms - used, 50));
        finish();
        const message = `Tool ${call.tool.name} timed out after ${ms} ms`;
        call.decision = 'timed_out';
        call.abort(new DOMException(message, 'TimeoutError'));
        resolve(toolError(message));
      };
      const arm = (delay: number) => {
        timer = setTimeout(check, delay);
      };
      arm(ms);
      next().then(
        (result) => {
          if (settled) return;
          finish();
          resolve(result);
        },
        (error: unknown) => {
          if (settled) return;
          finish();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  };
}
