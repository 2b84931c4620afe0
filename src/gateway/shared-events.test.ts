// Two gateway instances' events on one bus (memory: delivery is synchronous, so each step's effect is there
// at once): shared events travel only while the other instance has a listener of them, which it says when
// its listeners come and go, again every heartbeat, and when asked; one not heard of in time is forgotten.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryMessageBus } from '../stores/message-bus.js';
import { GatewayEvents, type GatewayEvent } from './gateway-events.js';
import { SharedEvents, WATCH_HEARTBEAT_MS } from './gateway-stores.js';

const started: GatewayEvent = {
  type: 'call.started',
  call: { id: 1, caller: {}, upstream: 'up', tool: 't', exposedName: 'up__t', argumentsDigest: 'sha256:0' },
  startedAt: '2026-07-28T00:00:00.000Z',
};

async function instance(bus: MemoryMessageBus) {
  const events = new GatewayEvents();
  const shared = new SharedEvents(events, bus, () => undefined);
  await shared.start();
  return { events, shared };
}

/** Runs the setImmediate that publishes the events of a turn. */
const turn = () => vi.advanceTimersToNextTimerAsync();

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'Date'] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('SharedEvents', () => {
  it('publishes nothing while no other instance listens, and forwards while one does', async () => {
    const bus = new MemoryMessageBus();
    const published: unknown[] = [];
    await bus.subscribe({ message: (message) => published.push(message) });
    const a = await instance(bus);
    const b = await instance(bus);
    const onB: GatewayEvent[] = [];

    expect(a.events.wants('call.started')).toBe(false);
    a.events.emit(started);
    await turn();
    expect(published.filter((m) => 'events' in (m as object))).toEqual([]);

    const off = b.events.on((event) => onB.push(event), ['call.started']);
    expect(a.events.wants('call.started')).toBe(true);
    expect(a.events.wants('upstream.status')).toBe(false); // not a shared type
    a.events.emit(started);
    await turn();
    expect(onB).toEqual([started]);

    off();
    expect(a.events.wants('call.started')).toBe(false);
    a.events.emit(started);
    await turn();
    expect(onB).toEqual([started]);
    b.shared.stop();
    a.shared.stop();
  });

  it('forwards the types the other instance listens to, and only those', async () => {
    const bus = new MemoryMessageBus();
    const a = await instance(bus);
    const b = await instance(bus);
    b.events.on(() => undefined, ['upstream.status', 'warning']); // an instance's own news: never shared
    expect(a.events.wants('call.started')).toBe(false);
    // A terminal's gateway narrates approvals: those are forwarded to it, calls are not.
    const offApprovals = b.events.on(() => undefined, ['approval.pending', 'approval.decided']);
    expect(a.events.wants('approval.pending')).toBe(true);
    expect(a.events.wants('call.started')).toBe(false);
    expect(a.events.wants('audit')).toBe(false);
    const offAll = b.events.on(() => undefined); // every type
    expect(a.events.wants('call.started')).toBe(true);
    expect(a.events.wants('audit')).toBe(true);
    offAll();
    expect(a.events.wants('call.started')).toBe(false);
    expect(a.events.wants('approval.decided')).toBe(true);
    offApprovals();
    expect(a.events.wants('approval.decided')).toBe(false);
  });

  it('an instance that starts learns of the listeners already there (it asks)', async () => {
    const bus = new MemoryMessageBus();
    const b = await instance(bus);
    b.events.on(() => undefined, ['audit']);
    const a = await instance(bus);
    expect(a.events.wants('audit')).toBe(true);
  });

  it('keeps believing a watching instance while it says so every heartbeat, and forgets one gone silent', async () => {
    const bus = new MemoryMessageBus();
    const a = await instance(bus);
    const b = await instance(bus);
    b.events.on(() => undefined);
    for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(WATCH_HEARTBEAT_MS);
    expect(a.events.wants('call.finished')).toBe(true);

    b.shared.stop(); // it says so as it stops
    expect(a.events.wants('call.finished')).toBe(false);

    // An instance that dies watching says nothing more: believed for three heartbeats, then forgotten.
    await bus.publish({ from: 'gone', watching: ['call.finished'] });
    expect(a.events.wants('call.finished')).toBe(true);
    await vi.advanceTimersByTimeAsync(3 * WATCH_HEARTBEAT_MS - 1);
    expect(a.events.wants('call.finished')).toBe(true);
    await vi.advanceTimersByTimeAsync(2);
    expect(a.events.wants('call.finished')).toBe(false);
    a.shared.stop();
  });
});
