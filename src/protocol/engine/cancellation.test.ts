import { describe, expect, it } from 'vitest';
import { CancellationSource, signalOf } from './cancellation.js';

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
