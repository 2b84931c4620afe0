import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CancellationSource, followSignal, signalOf } from './cancellation.js';

describe('CancellationSource', () => {
  it('fires each listener once, in order, with the reason; later aborts and removed listeners do nothing', () => {
    const source = new CancellationSource();
    const heard: string[] = [];
    source.onAbort((reason) => heard.push(`a:${String(reason)}`));
    const stop = source.onAbort(() => heard.push('removed'));
    source.onAbort((reason) => heard.push(`b:${String(reason)}`));
    stop();
    expect(source.aborted).toBe(false);
    expect(source.reason).toBeUndefined();
    source.abort('first');
    source.abort('second');
    expect(heard).toEqual(['a:first', 'b:first']);
    expect(source.aborted).toBe(true);
    expect(source.reason).toBe('first');
  });

  it('as a signal: aborted at once when it already fired, else when it fires', () => {
    const fired = new CancellationSource();
    fired.abort('done');
    expect(signalOf(fired).reason).toBe('done');
    const later = new CancellationSource();
    const signal = signalOf(later);
    expect(signal.aborted).toBe(false);
    later.abort('now');
    expect(signal.reason).toBe('now');
  });
});

describe('followSignal', () => {
  it('follows a signal for any number of followers through one listener of its own', () => {
    const controller = new AbortController();
    const heard: string[] = [];
    const stops = Array.from({ length: 50 }, (_, i) =>
      followSignal(controller.signal, (reason) => heard.push(`${i}:${String(reason)}`)),
    );
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    stops[1]!();
    stops[1]!(); // twice: nothing more
    controller.abort('why');
    expect(heard).toHaveLength(49);
    expect(heard[0]).toBe('0:why');
    expect(heard).not.toContain('1:why');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('leaves the signal with no listener once every follower stopped, and starts again after', () => {
    const controller = new AbortController();
    const heard: unknown[] = [];
    const a = followSignal(controller.signal, () => heard.push('a'));
    const b = followSignal(controller.signal, () => heard.push('b'));
    a();
    b();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    followSignal(controller.signal, (reason) => heard.push(reason));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort('later');
    expect(heard).toEqual(['later']);
  });
});
