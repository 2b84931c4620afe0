// Reading only the calls that changed: `GET /api/calls` says where its listing ends (a marker), and
// `GET /api/calls?since=MARKER` answers the calls changed after it — or, for a marker the call log cannot
// follow (another store's, a restarted one's), the listing, `whole: true`. The console reads so on every
// reconnection of its event stream: with 500 calls logged it read all of them again (≈175 KB) each time; now
// what changed meanwhile. Over the HTTP API and in a real browser; bytes and counts only.
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCallLogStore } from '../src/gateway/index.js';
import { CALL_IDS_PER_INSTANCE } from '../src/stores/call-log-store.js';
import { Server, text } from '../src/server/index.js';
import {
  API_TOKEN,
  launchBrowser,
  openConsole,
  startConsoleGateway,
  type ConsoleFixture,
} from './_console.js';

const CALLS = 500;
/** The calls put in the log before the gateway starts: ids of an instance of their own. */
const FIRST = 3 * CALL_IDS_PER_INSTANCE + 1;

let browser: Browser;
let closeBrowser: () => Promise<void>;
let fixture: ConsoleFixture;

beforeAll(async () => {
  const upstream = new Server({ name: 'up', version: '1.0.0' });
  upstream.tool('echo', { inputSchema: { type: 'object', properties: {} } }, () => text('ok'));
  const calls = new MemoryCallLogStore({ maxCalls: CALLS });
  const startedAt = new Date().toISOString();
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
  ({ browser, close: closeBrowser } = await launchBrowser());
  fixture = await startConsoleGateway(upstream, [{ tool: '*', action: 'allow' }], { stores: { calls } });
});

afterAll(async () => {
  await fixture?.close();
  await closeBrowser?.();
});

interface Listing {
  calls: { call: { id: number }; state: string }[];
  maxCalls?: number;
  marker?: string;
  whole?: boolean;
}

async function get(query: string): Promise<{ status: number; body: Listing & { error?: { code: string } } }> {
  const response = await fetch(`${fixture.handle.apiUrl}/calls${query}`, {
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });
  return { status: response.status, body: (await response.json()) as Listing & { error?: { code: string } } };
}

describe('GET /api/calls?since=MARKER', () => {
  it('answers the calls changed after the marker, and the listing for one the log cannot follow', async () => {
    const first = await get('?limit=500');
    expect(first.status).toBe(200);
    expect(first.body.calls).toHaveLength(CALLS);
    expect(first.body.marker).toMatch(/^[\w-]+\.\d+$/);
    expect(first.body).not.toHaveProperty('whole');

    const none = await get(`?limit=500&since=${first.body.marker}`);
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
    const one = await get(`?since=${first.body.marker}`);
    expect(one.body.whole).toBe(false);
    expect(one.body.calls.map((c) => c.state)).toEqual(['finished']);
    expect(one.body.calls[0]!.call.id).toBeLessThan(FIRST);
    expect(one.body.marker).not.toBe(first.body.marker);

    // Another store's marker (or one from before a restart): the listing, whole.
    const other = await get(`?limit=3&since=${randomUUID()}.7`);
    expect(other.body.whole).toBe(true);
    expect(other.body.calls).toHaveLength(3);
    expect(other.body.marker).toBe(one.body.marker);

    for (const bad of ['', 'x', `${'a'.repeat(65)}.1`, 'a.-1', 'a.1.2']) {
      const refused = await get(`?since=${encodeURIComponent(bad)}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error?.code).toBe('INVALID_REQUEST');
    }
  });
});

describe('the console on reconnecting', () => {
  it('reads only the calls changed meanwhile, not the 500 again', async () => {
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
    await list.locator(`li.call.state-ok[data-call="${id}"]`).waitFor();
    const last = reads.at(-1)!;
    expect(last.listing.whole).toBe(false);
    expect(last.listing.calls.map((c) => c.call.id)).toContain(id);
    expect(last.bytes).toBeLessThan(2_000);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
