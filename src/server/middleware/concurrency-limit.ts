/**
 * A cap on concurrent calls per tool, in this process. A call past the cap waits for a slot, first come
 * first served, up to `maxWaitMs`; one that finds `maxQueue` calls already waiting, or waits too long,
 * is refused with the rate-limit error (`-31429`, `limit: 'concurrency'`). A slot is held until the
 * handler has really finished: a call that timed out keeps its slot while its handler still runs, so a
 * handler that ignores its signal cannot pile up copies of itself.
 * @module
 */
import { ServerError } from '../server-error.js';
import { LocalErrorCode } from '../../protocol/errors.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import type { MaybePromise } from '../../protocol/promise-like.js';
import type { InlineMiddleware } from './compose.js';
import type { ToolCall } from './middleware.js';
import { rateLimitedError } from './rate-limit.js';

export interface ConcurrencyOptions {
  /** Calls of one tool at once, for tools without their own `maxConcurrency` (default: no cap). */
  perTool?: number;
  /** How long a call past the cap waits for a slot, in ms (default 10,000; 0: refused at once). */
  maxWaitMs?: number;
  /** Calls that may wait per tool; more are refused at once (default 100). */
  maxQueue?: number;
  /** The `retryAfterMs` a refused call is told (default 1,000). */
  retryAfterMs?: number;
}

interface Waiter {
  grant(): void;
}

interface Slots {
  active: number;
  readonly queue: Waiter[];
}

export function checkConcurrency(value: number | undefined, what: string): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
    throw new ServerError(LocalErrorCode.InvalidDefinition, `${what} must be an integer ≥ 1`);
  }
}

export function concurrencyLimit(
  options: ConcurrencyOptions = {},
): InlineMiddleware<ToolCall, CallToolResult> {
  const { perTool, maxWaitMs = 10_000, maxQueue = 100, retryAfterMs = 1000 } = options;
  checkConcurrency(perTool, 'concurrency.perTool');
  const slots = new Map<string, Slots>();

  const release = (name: string) => {
    const tool = slots.get(name);
    if (!tool) return;
    const next = tool.queue.shift();
    if (next) return next.grant(); // the slot passes on: `active` stays
    tool.active -= 1;
    if (tool.active === 0) slots.delete(name);
  };

  const refuse = (call: ToolCall, why: string) => {
    call.decision = 'rate_limited';
    return rateLimitedError(`Too many concurrent calls to tool ${call.tool.name} (${why})`, {
      retryAfterMs,
      limit: 'concurrency',
    });
  };

  const acquire = (call: ToolCall, cap: number): Promise<void> => {
    const name = call.tool.name;
    let tool = slots.get(name);
    if (!tool) slots.set(name, (tool = { active: 0, queue: [] }));
    if (tool.active < cap) {
      tool.active += 1;
      return Promise.resolve();
    }
    if (maxWaitMs <= 0 || tool.queue.length >= maxQueue) {
      return Promise.reject(refuse(call, `at most ${cap} at once`));
    }
    const queue = tool.queue;
    return new Promise<void>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        call.signal.removeEventListener('abort', onAbort);
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
      };
      const waiter: Waiter = {
        grant: () => {
          leave();
          resolve();
        },
      };
      const onAbort = () => {
        leave();
        reject(
          call.signal.reason instanceof Error ? call.signal.reason : new Error('The call was cancelled'),
        );
      };
      const timer = setTimeout(() => {
        leave();
        reject(refuse(call, `no slot within ${maxWaitMs} ms; at most ${cap} at once`));
      }, maxWaitMs);
      call.signal.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
    });
  };

  const limited = async (call: ToolCall, next: () => MaybePromise<CallToolResult>, cap: number) => {
    await acquire(call, cap);
    try {
      return await next();
    } finally {
      void call.done.then(() => release(call.tool.name));
    }
  };
  // Not async for uncapped tools (nearly all): their call is the rest of the chain's promise as is.
  return (call, next) => {
    const cap = call.tool.limits.maxConcurrency ?? perTool;
    return cap === undefined ? next() : limited(call, next, cap);
  };
}
