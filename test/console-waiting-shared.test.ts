// Activity's waiting mark over two gateways sharing Redis (approvals, call log, bus), the console on the
// first: the news that a call of the second instance waits for a person (its `approval.pending`) reached the
// page before the call's `call.started`, and the page dropped it (a change to a call it did not know): the
// call showed as running, not waiting, until the next listing. The second instance's bus here delivers its
// `call.started` only once the page has heard the approval, so the order is the one that lost the mark.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/index.js';
import { Server } from '../src/server/index.js';
import type { BusSubscriber, MessageBus } from '../src/stores/message-bus.js';
import { addDeleteFileTool, gate, openConsole, textOf, type ConsoleFixture } from './_console.js';
import { nextPending } from './_older-approvals.js';
import { sharedConsole } from './_shared-console.js';

/** A bus that holds the `call.started` events published on it until `release()`; the rest go at once. */
class HeldCallStarts implements MessageBus {
  readonly #inner: MessageBus;
  readonly #held: JsonObject[] = [];
  #holding = true;
  /** Resolved once a `call.started` is held. */
  readonly heldOne = gate();

  constructor(inner: MessageBus) {
    this.#inner = inner;
  }

  async publish(message: JsonObject): Promise<void> {
    const { events } = message;
    if (!this.#holding || !Array.isArray(events)) return this.#inner.publish(message);
    const isStart = (event: unknown) => (event as { type?: unknown }).type === 'call.started';
    const starts = events.filter(isStart);
    if (starts.length > 0) {
      this.#held.push({ ...message, events: starts });
      this.heldOne.open();
    }
    const rest = events.filter((event) => !isStart(event));
    if (rest.length > 0) await this.#inner.publish({ ...message, events: rest });
  }

  async release(): Promise<void> {
    this.#holding = false;
    for (const message of this.#held.splice(0)) await this.#inner.publish(message);
  }

  subscribe(subscriber: BusSubscriber): Promise<() => void> {
    return this.#inner.subscribe(subscriber);
  }

  instanceNumber(): Promise<number> {
    return this.#inner.instanceNumber();
  }
}

const shared = sharedConsole('console-waiting-shared:');

/** A gateway (an instance) on the shared Redis, with stores of its own, as another process would have. */
async function instance(bus?: (bus: MessageBus) => MessageBus): Promise<ConsoleFixture> {
  const upstream = new Server({ name: 'files', version: '1.0.0' });
  addDeleteFileTool(upstream);
  const { fixture } = await shared.instance(upstream, [{ tool: 'delete_file', action: 'ask' }], (own) => ({
    approvals: own.approvals,
    calls: own.calls,
    bus: bus ? bus(own.bus) : own.bus,
  }));
  return fixture;
}

describe('Activity over two gateways sharing Redis', () => {
  it("marks another instance's call waiting when its approval's news came before the call's start", async () => {
    const a = await instance();
    let held!: HeldCallStarts;
    const b = await instance((bus) => (held = new HeldCallStarts(bus)));
    // The page's first listing of the calls is read before the call is made (a listing would mend the mark).
    const listed = gate();
    const { page, errors } = await openConsole(shared.browser, a, {
      view: 'activity',
      before: async (context) =>
        context.on('response', (response) => {
          if (new URL(response.url()).pathname === '/api/calls') listed.open();
        }),
    });
    await listed.promise;
    const model = await b.model();
    const pending = nextPending(b);
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'shared.md' } });
    const { id, callId } = await pending;
    await held.heldOne.promise;
    // The page has heard of the approval (its count in the title), not yet of the call.
    await page.waitForFunction(() => document.title.startsWith('(1) '));
    const row = page.locator(`li.call[data-call="${callId}"]`);
    expect(await row.count()).toBe(0);
    await held.release();
    const state = row.locator('.badge.state');
    await state.waitFor();
    expect(await state.innerText()).toBe('waiting');

    await b.gateway.approvals.decide(id, { approve: true, decidedBy: 'test' });
    expect(textOf(await call)).toBe('deleted shared.md');
    await row.locator('.badge.state', { hasText: 'ok' }).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
