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
  it('cancels a running call once (its cancellation fires, naming who, recorded at its end), and says when it finished already', async () => {
    const log = new CallLog();
    const cancellation = log.start(info(1), {});
    expect(await log.cancel(1, 'alice')).toBe('cancelled');
    expect(cancellation.aborted).toBe(true);
    expect(log.cancelledBy(1)).toBe('alice');
    log.finish(1, { ...end, outcome: 'cancelled' });
    expect(await log.get(1)).toMatchObject({ state: 'finished', outcome: 'cancelled', cancelledBy: 'alice' });
    expect(await log.cancel(1, 'bob')).toBe('finished');
    expect(await log.cancel(99, 'bob')).toBeUndefined();
  });

  it('asks the instance running a call it does not run itself, through reach', async () => {
    const running = new CallLog();
    const other = new CallLog(running.store); // another instance on the same (shared) store
    const asked: [number, string][] = [];
    other.reach((id, by) => {
      asked.push([id, by]);
      running.cancelHere(id, by);
      return Promise.resolve();
    });
    const cancellation = running.start(info(1), { a: 1 });
    expect(await other.get(1)).toMatchObject({ state: 'running', arguments: { a: 1 } });
    expect(await other.cancel(1, 'carol')).toBe('requested');
    expect(asked).toEqual([[1, 'carol']]);
    expect(cancellation.aborted).toBe(true);
    running.finish(1, { ...end, outcome: 'cancelled' });
    expect(await other.cancel(1, 'carol')).toBe('finished');
  });
});
