// Reading only the calls that changed: `GET /api/calls` says where its listing ends (a marker), and
// `GET /api/calls?since=MARKER` answers the calls changed after it — or, for a marker the call log cannot
// follow (another store's, a restarted one's), the listing, `whole: true`. The console reads so on every
// reconnection of its event stream: with 500 calls logged it read all of them again (≈175 KB) each time; now
// what changed meanwhile. Over the HTTP API and in a real browser; bytes and counts, and where the calls read
// land: by start time, as the log lists them, not by id (the instances sharing a log number calls apart).
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCallLogStore } from '../src/gateway/index.js';
import { CALL_IDS_PER_INSTANCE, type CallChanges } from '../src/stores/call-log-store.js';
import { Server, text } from '../src/server/index.js';
import {
  API_TOKEN,
  gate,
  launchBrowser,
  openConsole,
  startConsoleGateway,
  type ConsoleFixture,
} from './_console.js';

const CALLS = 500;
/**
 * The calls put in the log before the gateway starts: ids of an instance of their own (3), started a minute
 * before the gateway's (instance 0, ids from 1), as a gateway sharing its log with another would see them.
 */
const FIRST = 3 * CALL_IDS_PER_INSTANCE + 1;

let browser: Browser;
let closeBrowser: () => Promise<void>;
/** Each test's own gateway, over a log of its own (`seeded`). */
let current: ConsoleFixture | undefined;

beforeAll(async () => {
  ({ browser, close: closeBrowser } = await launchBrowser());
});

afterEach(async () => {
  await current?.close();
  current = undefined;
});

afterAll(async () => {
  await closeBrowser?.();
});

/** A call log whose next answer to `changes` (`hold`), computed when asked, is given when released. */
class HeldCallLog extends MemoryCallLogStore {
  #held: { asked: () => void; released: Promise<void> } | undefined;

  /** Holds the next answer: `asked` settles when it is asked for; `release` gives it. */
  hold(): { asked: Promise<void>; release: () => void } {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const asked = new Promise<void>((resolve) => (this.#held = { asked: resolve, released }));
    return { asked, release };
  }

  override async changes(marker: string | undefined, limit?: number): Promise<CallChanges> {
    const answer = await super.changes(marker, limit);
    const held = this.#held;
    this.#held = undefined;
    held?.asked();
    await held?.released;
    return answer;
  }
}

/**
 * A gateway over `calls` (a memory log by default) holding 500 finished calls of instance 3; its upstream's
 * `echo` answers at once, its `wait` once `until` has settled.
 */
async function seeded<T extends MemoryCallLogStore>(
  calls: T = new MemoryCallLogStore({ maxCalls: CALLS }) as T,
  until: Promise<void> = Promise.resolve(),
): Promise<{ fixture: ConsoleFixture; calls: T }> {
  const upstream = new Server({ name: 'up', version: '1.0.0' });
  upstream.tool('echo', { inputSchema: { type: 'object', properties: {} } }, () => text('ok'));
  upstream.tool('wait', { inputSchema: { type: 'object', properties: {} } }, async () => {
    await until;
    return text('waited');
  });
  const startedAt = new Date(Date.now() - 60_000).toISOString();
  for (let id = FIRST; id < FIRST + CALLS; id++) {
    const call = {
      id,
      caller: { principal: 'model', sessionId: randomUUID() },
      upstream: 'up',
      tool: 'echo',
      exposedName: 'up__echo',
      argumentsDigest: `sha256:${'0'.repeat(64)}`,
    };
    calls.start(call, { path: `/tmp/${id}` }, startedAt);
    calls.finish(id, { decision: 'allowed', outcome: 'ok', durationMs: 1, result: { content: [] } });
  }
  current = await startConsoleGateway(upstream, [{ tool: '*', action: 'allow' }], { stores: { calls } });
  return { fixture: current, calls };
}

interface Listing {
  calls: { call: { id: number }; state: string }[];
  maxCalls?: number;
  marker?: string;
  whole?: boolean;
}

async function get(
  fixture: ConsoleFixture,
  query: string,
): Promise<{ status: number; body: Listing & { error?: { code: string } } }> {
  const response = await fetch(`${fixture.handle.apiUrl}/calls${query}`, {
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });
  return { status: response.status, body: (await response.json()) as Listing & { error?: { code: string } } };
}

describe('GET /api/calls?since=MARKER', () => {
  it('answers the calls changed after the marker, and the listing for one the log cannot follow', async () => {
    const { fixture } = await seeded();
    const first = await get(fixture, '?limit=500');
    expect(first.status).toBe(200);
    expect(first.body.calls).toHaveLength(CALLS);
    expect(first.body.marker).toMatch(/^[\w-]+\.\d+$/);
    expect(first.body).not.toHaveProperty('whole');

    const none = await get(fixture, `?limit=500&since=${first.body.marker}`);
    expect(none.body).toEqual({
      calls: [],
      maxCalls: CALLS,
      marker: first.body.marker,
      whole: false,
      runningOmitted: 0,
    });

    const model = await fixture.model();
    const stop = fixture.gateway.on(() => undefined);
    await model.callTool({ name: 'up__echo', arguments: {} });
    stop();
    const one = await get(fixture, `?since=${first.body.marker}`);
    expect(one.body.whole).toBe(false);
    expect(one.body.calls.map((c) => c.state)).toEqual(['finished']);
    expect(one.body.calls[0]!.call.id).toBeLessThan(FIRST);
    expect(one.body.marker).not.toBe(first.body.marker);

    // Another store's marker (or one from before a restart): the listing, whole.
    const other = await get(fixture, `?limit=3&since=${randomUUID()}.7`);
    expect(other.body.whole).toBe(true);
    expect(other.body.calls).toHaveLength(3);
    expect(other.body.marker).toBe(one.body.marker);

    for (const bad of ['', 'x', `${'a'.repeat(65)}.1`, 'a.-1', 'a.1.2']) {
      const refused = await get(fixture, `?since=${encodeURIComponent(bad)}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error?.code).toBe('INVALID_REQUEST');
    }
  });
});

describe('the console on reconnecting', () => {
  it('reads only the calls changed meanwhile, not the 500 again, and shows them where they started', async () => {
    const { fixture } = await seeded();
    const { page, errors } = await openConsole(browser, fixture, { view: 'activity' });
    const reads: { bytes: number; listing: Listing }[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname !== '/api/calls') return;
      void response.body().then((body) => {
        reads.push({ bytes: body.length, listing: JSON.parse(body.toString()) as Listing });
      });
    });
    const list = page.getByRole('list', { name: 'calls' });
    await expect.poll(() => list.locator('li.call').first().getAttribute('aria-setsize')).toBe(String(CALLS));
    const before = await fixture.gateway.calls.list(CALLS);
    const whole = new TextEncoder().encode(JSON.stringify({ calls: before, maxCalls: CALLS })).length;

    // The gateway stops serving (every connection dropped) and serves again: the page reconnects.
    await fixture.restart();
    await expect.poll(() => reads.length).toBeGreaterThanOrEqual(1);
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    for (const reconnect of reads) {
      expect(reconnect.listing).toMatchObject({ calls: [], whole: false });
      expect(reconnect.bytes).toBeLessThan(200);
    }
    expect(whole).toBeGreaterThan(150_000);

    // A call made while the page was away is read on the next reconnection, and shown.
    await page.route('**/api/events', (route) => route.abort());
    await fixture.restart();
    await page.getByRole('status').filter({ hasText: 'reconnecting' }).waitFor();
    const model = await fixture.model();
    await model.callTool({ name: 'up__echo', arguments: {} }); // logged: the grace after the page left
    const id = (await fixture.gateway.calls.list(1))[0]!.call.id;
    await page.unroute('**/api/events');
    // Its id is below the 500 shown (instance 0's, theirs instance 3's); it started last, and is shown first.
    expect(id).toBeLessThan(FIRST);
    await list.locator(`li.call.state-ok[data-call="${id}"]`).waitFor();
    expect(await list.locator('li.call').first().getAttribute('data-call')).toBe(String(id));
    // The read that brought it (the page may read again after it, with nothing changed: while the stream was
    // refused, and on connecting), and every read since the first restart, only what changed.
    const brought = () => reads.find(({ listing }) => listing.calls.some((c) => c.call.id === id));
    await expect.poll(brought).toBeDefined();
    expect(brought()!.bytes).toBeLessThan(2_000);
    for (const read of reads) {
      expect(read.listing.whole).toBe(false);
      expect(read.bytes).toBeLessThan(2_000);
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe('the console merging a listing with the calls it saw start', () => {
  it('keeps a call that started after the listing on top, whatever its id', async () => {
    const { fixture, calls } = await seeded(new HeldCallLog({ maxCalls: CALLS }));
    // The page's first read of the calls is answered as the log was before the call below.
    const held = calls.hold();
    const { page, errors } = await openConsole(browser, fixture, { view: 'activity' });
    await held.asked;
    const model = await fixture.model();
    await model.callTool({ name: 'up__echo', arguments: {} });
    const id = (await calls.list(1))[0]!.call.id;
    expect(id).toBeLessThan(FIRST);
    const list = page.getByRole('list', { name: 'calls' });
    await list.locator(`li.call.state-ok[data-call="${id}"]`).waitFor(); // from the stream's events
    held.release();
    await expect.poll(() => list.locator('li.call').first().getAttribute('aria-setsize')).toBe(String(CALLS));
    expect(await list.locator('li.call').first().getAttribute('data-call')).toBe(String(id));
    expect(await list.locator('li.call').nth(1).getAttribute('data-call')).toBe(String(FIRST + CALLS - 1));
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("keeps a running call there with the browser's clock an hour behind the gateway's: placed by the gateway's start time", async () => {
    const finish = gate();
    const { fixture, calls } = await seeded(new HeldCallLog({ maxCalls: CALLS }), finish.promise);
    const held = calls.hold();
    // The browser's clock is an hour slow (it runs on from there).
    const { page, errors } = await openConsole(browser, fixture, {
      view: 'activity',
      before: (context) => context.clock.install({ time: Date.now() - 3_600_000 }),
    });
    await held.asked;
    const model = await fixture.model();
    const call = model.callTool({ name: 'up__wait', arguments: {} });
    const list = page.getByRole('list', { name: 'calls' });
    const row = list.locator('li.call.state-running'); // from the stream's call.started
    await row.waitFor();
    const id = Number(await row.getAttribute('data-call'));
    expect(id).toBeLessThan(FIRST);
    held.release();
    // The listing (its newest call a minute old) merged: the call that started since stays on top. Placed by
    // the browser's clock, it was an hour older than the listing's calls, and left out.
    await expect.poll(() => list.locator('li.call').first().getAttribute('aria-setsize')).toBe(String(CALLS));
    expect(await list.locator('li.call').first().getAttribute('data-call')).toBe(String(id));
    expect(await list.locator('li.call').nth(1).getAttribute('data-call')).toBe(String(FIRST + CALLS - 1));
    finish.open();
    await call;
    await list.locator(`li.call.state-ok[data-call="${id}"]`).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
