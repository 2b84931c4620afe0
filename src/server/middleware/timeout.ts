/**
 * The execution timeout of tool calls: past it, the handler's signal is aborted (reason: a
 * `TimeoutError` DOMException) and the call ends at once with an `isError` result saying so. A handler
 * that ignores its signal may still be running; whatever it returns later is dropped. Time the handler
 * spends waiting for the client's input (elicitation, sampling, roots) does not count: a person
 * answering a form is not a hung tool. Tools declared for tasks get no default timeout, only their own.
 * @module
 */
import { LocalErrorCode, asError } from '../../protocol/errors.js';
import { isPromiseLike } from '../../protocol/promise-like.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import { toolError } from '../results.js';
import { ServerError } from '../server-error.js';
import type { InlineMiddleware } from './compose.js';
import { DeadlineEntry, DeadlineList } from './deadline-list.js';
import type { ToolCall, ToolMiddleware } from './middleware.js';

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

/** One call under a timeout: settles its promise with the result, or with an `isError` when time is up. */
class TimedCall extends DeadlineEntry {
  readonly #call: ToolCall;
  readonly #list: DeadlineList;
  readonly #started: number;
  readonly #resolve: (result: CallToolResult) => void;
  readonly #reject: (error: Error) => void;
  #settled = false;

  constructor(
    call: ToolCall,
    list: DeadlineList,
    resolve: (result: CallToolResult) => void,
    reject: (error: Error) => void,
    started: number,
  ) {
    super();
    this.#call = call;
    this.#list = list;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#started = started;
    list.add(this, started);
  }

  /** Settles with what the chain produced, unless the call already timed out. */
  done(result: CallToolResult): void {
    if (this.#settle()) this.#resolve(result);
  }

  /** Settles with the chain's error, unless the call already timed out. */
  fail(error: unknown): void {
    if (this.#settle()) this.#reject(asError(error));
  }

  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.cancel();
    return true;
  }

  expire(now: number): void {
    if (this.#settled) return;
    const call = this.#call;
    const ms = this.#list.ms;
    const used = now - this.#started - call.inputWaitMs();
    // While the handler waits for input its clock stands still: look again later (rare, so a timer
    // of its own rather than a place out of order in the list).
    if (call.waitingForInput || used < ms) {
      setTimeout(() => this.expire(performance.now()), Math.max(ms - used, 50));
      return;
    }
    this.#settled = true;
    const message = `Tool ${call.tool.name} timed out after ${ms} ms`;
    call.decision = 'timed_out';
    call.abort(new DOMException(message, 'TimeoutError'));
    this.#resolve(toolError(message));
  }
}

export function timeout(options: TimeoutOptions = {}): ToolMiddleware {
  const inline = inlineTimeout(options);
  return (call, next) => Promise.resolve(inline(call, next));
}

/**
 * The timeout as the chain's built-in: a handler that answered synchronously has nothing left to time
 * out, so its result passes as it is; only a call still running when the rest of the chain returns gets
 * a deadline (counted from before it started).
 */
export function inlineTimeout(options: TimeoutOptions = {}): InlineMiddleware<ToolCall, CallToolResult> {
  const defaultMs = options.defaultMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  checkTimeout(defaultMs, 'toolTimeout');
  // One list per timeout length (the default, and each length tools declare).
  const lists = new Map<number, DeadlineList>();

  return (call, next) => {
    // A tool declared for tasks is long-running by design: only its own timeout applies.
    const ms = call.tool.limits.timeout ?? (call.tool.task ? 0 : defaultMs);
    if (ms <= 0) return next();
    const started = performance.now();
    const running = next();
    if (!isPromiseLike(running)) return running;
    let list = lists.get(ms);
    if (!list) lists.set(ms, (list = new DeadlineList(ms)));
    const deadlines = list;
    return new Promise<CallToolResult>((resolve, reject) => {
      const timed = new TimedCall(call, deadlines, resolve, reject, started);
      running.then(
        (result) => timed.done(result),
        (error: unknown) => timed.fail(error),
      );
    });
  };
}
