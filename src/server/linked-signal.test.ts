import { describe, expect, it } from 'vitest';
import type { Cancellation } from '../protocol/engine/cancellation.js';
import { linkedSignal } from './linked-signal.js';

describe('linkedSignal', () => {
  it('aborts with the parent, with the parent reason', () => {
    const parent = new AbortController();
    const linked = linkedSignal(parent.signal);
    parent.abort('stop');
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('stop');
  });

  it('aborts on its own without aborting the parent', () => {
    const parent = new AbortController();
    const linked = linkedSignal(parent.signal);
    linked.abort('timeout');
    expect(linked.signal.reason).toBe('timeout');
    expect(parent.signal.aborted).toBe(false);
  });

  it('starts aborted under an aborted parent, and stops following once disposed', () => {
    const gone = new AbortController();
    gone.abort('already');
    expect(linkedSignal(gone.signal).signal.reason).toBe('already');
    const parent = new AbortController();
    const linked = linkedSignal(parent.signal);
    linked.dispose();
    parent.abort('late');
    expect(linked.signal.aborted).toBe(false);
  });
});

/** A parent with no AbortSignal at all: only what `Cancellation` offers. */
function hookParent() {
  const listeners: Array<(reason: unknown) => void> = [];
  let reason: unknown;
  let aborted = false;
  const parent: Cancellation = {
    get aborted() {
      return aborted;
    },
    get reason() {
      return reason;
    },
    onAbort(listener) {
      listeners.push(listener);
      return () => listeners.splice(listeners.indexOf(listener), 1);
    },
  };
  const abort = (why: unknown) => {
    aborted = true;
    reason = why;
    for (const listener of listeners.splice(0)) listener(why);
  };
  return { parent, listeners, abort };
}

describe('linkedSignal as a cancellation', () => {
  it('follows its parent only while something listens, and tells the listeners once', () => {
    const { parent, listeners, abort } = hookParent();
    const linked = linkedSignal(parent);
    expect(listeners).toHaveLength(0);
    const seen: unknown[] = [];
    const stop = linked.onAbort((why) => seen.push(why));
    expect(listeners).toHaveLength(1);
    abort('gone');
    expect(seen).toEqual(['gone']);
    expect(linked.aborted).toBe(true);
    expect(linked.reason).toBe('gone');
    expect(linked.signal.reason).toBe('gone');
    stop();
  });

  it('stops following on dispose, and an own abort reaches listeners and the signal', () => {
    const { parent, listeners, abort } = hookParent();
    const linked = linkedSignal(parent);
    const seen: unknown[] = [];
    linked.onAbort((why) => seen.push(why));
    linked.dispose();
    expect(listeners).toHaveLength(0);
    abort('late');
    expect(linked.aborted).toBe(false);
    const other = linkedSignal(parent);
    const signal = linkedSignal(hookParent().parent);
    signal.onAbort((why) => seen.push(why));
    signal.abort('timeout');
    expect(seen).toEqual(['timeout']);
    expect(signal.signal.reason).toBe('timeout');
    expect(other.aborted).toBe(true); // made under an aborted parent
  });

  it('a listener removed before the abort is not called', () => {
    const { parent, abort } = hookParent();
    const linked = linkedSignal(parent);
    const seen: unknown[] = [];
    const stop = linked.onAbort(() => seen.push('first'));
    linked.onAbort(() => seen.push('second'));
    stop();
    abort('x');
    expect(seen).toEqual(['second']);
  });
});
