import { describe, expect, it } from 'vitest';
import { CallLog } from './call-log.js';
import type { CallInfo } from './gateway-events.js';

const info = (id: number): CallInfo => ({
  id,
  caller: {},
  upstream: 'up',
  tool: 't',
  exposedName: 'up__t',
  argumentsDigest: 'sha256:0',
});
const end = { decision: 'allowed', outcome: 'ok', durationMs: 1 } as const;

describe('CallLog', () => {
  it('keeps the latest calls, newest first, with arguments and results, and never drops a running one', () => {
    const log = new CallLog({ maxCalls: 2 });
    log.start(info(1), { a: 1 }); // stays running
    for (const id of [2, 3, 4]) {
      log.start(info(id), { id });
      log.finish(id, { ...end, result: { content: [{ type: 'text', text: `r${id}` }] } });
    }
    expect(log.list().map((c) => c.call.id)).toEqual([4, 1]);
    expect(log.get(4)).toMatchObject({ state: 'finished', arguments: { id: 4 }, hasResult: true });
    expect(log.get(1)).toMatchObject({ state: 'running', hasResult: false });
    expect(log.list()[0]).not.toHaveProperty('arguments');
  });

  it('drops the oldest results past maxBytes and does not keep one larger than maxResultBytes', () => {
    const log = new CallLog({ maxBytes: 300, maxResultBytes: 200 });
    const big = { content: [{ type: 'text' as const, text: 'x'.repeat(120) }] };
    for (const id of [1, 2, 3]) {
      log.start(info(id), {});
      log.finish(id, { ...end, result: big });
    }
    expect(log.get(1)).toMatchObject({ hasResult: false, resultDropped: 'evicted' });
    expect(log.get(3)).toMatchObject({ hasResult: true });
    log.start(info(4), {});
    log.finish(4, { ...end, result: { content: [{ type: 'text', text: 'y'.repeat(400) }] } });
    expect(log.get(4)).toMatchObject({ hasResult: false, resultDropped: 'too-large' });
  });

  it('cancels a running call once (its signal aborts, naming who), and says when it finished already', () => {
    const log = new CallLog();
    const signal = log.start(info(1), {});
    expect(log.cancel(1, 'alice')).toBe('cancelled');
    expect(signal.aborted).toBe(true);
    expect(log.cancelledBy(1)).toBe('alice');
    log.finish(1, { ...end, outcome: 'cancelled' });
    expect(log.cancel(1, 'bob')).toBe('finished');
    expect(log.cancel(99, 'bob')).toBeUndefined();
  });
});
