import { describe, expect, it } from 'vitest';
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
