// The console keeps no more calls than the gateway's call log (`maxCalls`, which `GET /api/calls` says): past
// it, the oldest rows go as the log's calls do, so every row shown opens (it kept up to 10,000 whatever the
// log's size, and a row the log no longer had answered "No call N" when opened). A call that still runs is
// listed and shown however many calls started after it (it was cut with the oldest, hidden until it ended),
// over the HTTP API and in a real browser; counts only.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCallLogStore } from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import {
  API_TOKEN,
  gate,
  launchBrowser,
  openConsole,
  startConsoleGateway,
  type ConsoleFixture,
} from './_console.js';

/** The call log's size. */
const MAX_CALLS = 5;
const CALLS = 8;

let browser: Browser;
let closeBrowser: () => Promise<void>;
let fixture: ConsoleFixture;
/** What the slow tool waits for. */
let slow = gate();

beforeAll(async () => {
  const upstream = new Server({ name: 'up', version: '1.0.0' });
  upstream.tool('echo', { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, () =>
    text('ok'),
  );
  upstream.tool('slow', { inputSchema: { type: 'object' } }, async () => {
    await slow.promise;
    return text('slow done');
  });
  ({ browser, close: closeBrowser } = await launchBrowser());
  fixture = await startConsoleGateway(upstream, [{ tool: '*', action: 'allow' }], {
    stores: { calls: new MemoryCallLogStore({ maxCalls: MAX_CALLS }) },
  });
});

afterAll(async () => {
  await fixture?.close();
  await closeBrowser?.();
});

describe("the console and the call log's size", () => {
  it('keeps as many calls as the call log, and the oldest shown opens', async () => {
    const model = await fixture.model();
    const call = async (n: number) => {
      const result = await model.callTool({ name: 'up__echo', arguments: { n } });
      expect(result.isError).toBeFalsy();
    };
    // Call #1 logged before the console opens (a listener here): listed by the console's first reload, which
    // has then told it the log's size.
    const stop = fixture.gateway.on(() => undefined);
    await call(1);
    const { page, errors } = await openConsole(browser, fixture, { view: 'activity' });
    stop();
    const list = page.getByRole('list', { name: 'calls' });
    await list.getByRole('button', { name: /#1 up__echo/ }).waitFor();

    // The API says the log's size.
    const listing = await page.evaluate(async () => {
      const response = await fetch('/api/calls', { headers: { 'x-toolwire-console': '1' } });
      return (await response.json()) as { calls: unknown[]; maxCalls?: number };
    });
    expect(listing.maxCalls).toBe(MAX_CALLS);

    // #2 … #8 through the event stream: the oldest go past the log's size.
    for (let n = 2; n <= CALLS; n++) await call(n);
    await list.locator(`li.call.state-ok[data-call="${CALLS}"]`).waitFor();
    const shown = await list.locator('li.call').evaluateAll((rows) => rows.map((row) => row.dataset.call));
    expect(shown).toEqual(['8', '7', '6', '5', '4']);
    expect(await list.locator('li.call').first().getAttribute('aria-setsize')).toBe(String(MAX_CALLS));

    // The oldest shown opens: its arguments, not "No call 4".
    await list.getByRole('button', { name: /#4 up__echo/ }).click();
    const detail = list.locator('li.call[data-call="4"] .call-detail');
    await detail.waitFor();
    expect(await detail.innerText()).toContain('n: 4');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('lists and shows a running call however many calls started after it, over the API and in the page', async () => {
    slow = gate();
    const stop = fixture.gateway.on(() => undefined);
    const model = await fixture.model();
    const running = model.callTool({ name: 'up__slow', arguments: {} });
    await expect
      .poll(async () => (await fixture.gateway.calls.list()).find((c) => c.call.tool === 'slow')?.state)
      .toBe('running');
    const id = (await fixture.gateway.calls.list()).find((c) => c.call.tool === 'slow')!.call.id;
    const { page, errors } = await openConsole(browser, fixture, { view: 'activity' });
    stop();
    const list = page.getByRole('list', { name: 'calls' });
    const row = list.locator(`li.call.state-running[data-call="${id}"]`);
    await row.waitFor();

    // More calls than the log keeps start after it, through the event stream.
    for (let n = 1; n <= MAX_CALLS + 1; n++) {
      const result = await model.callTool({ name: 'up__echo', arguments: { n } });
      expect(result.isError).toBeFalsy();
    }
    const last = id + MAX_CALLS + 1;
    await list.locator(`li.call.state-ok[data-call="${last}"]`).waitFor();
    const shown = async () =>
      list.locator('li.call').evaluateAll((rows) => rows.map((row) => Number(row.dataset.call)));
    const expected = [...Array.from({ length: MAX_CALLS }, (_, i) => last - i), id];
    expect(await shown()).toEqual(expected);
    // The call between them ended and is no longer kept: the note says so (this page watched it).
    expect(await list.getByRole('note').innerText()).toBe(
      '1 call not in the call log (finished and no longer kept, or made while no console was watching) — see Audit',
    );

    // The API lists it after the latest, whatever the limit.
    const listed = async (query: string) => {
      const response = await fetch(`${fixture.handle.apiUrl}/calls${query}`, {
        headers: { authorization: `Bearer ${API_TOKEN}` },
      });
      expect(response.status).toBe(200);
      const { calls } = (await response.json()) as { calls: { call: { id: number }; state: string }[] };
      return calls.map((c) => `${c.call.id} ${c.state}`);
    };
    expect(await listed('')).toEqual([...expected.slice(0, -1).map((n) => `${n} finished`), `${id} running`]);
    expect(await listed('?limit=2')).toEqual([`${last} finished`, `${last - 1} finished`, `${id} running`]);

    // A page opened now lists it too (from the listing).
    await page.reload();
    await list.locator(`li.call.state-ok[data-call="${last}"]`).waitFor();
    await row.waitFor();
    expect(await shown()).toEqual(expected);
    expect(errors).toEqual([]);

    slow.open();
    expect((await running).isError).toBeFalsy();
    await page.context().close();
  });

  it('says how many running calls older than those listed are not shown, until they end', async () => {
    slow = gate();
    const stop = fixture.gateway.on(() => undefined);
    const model = await fixture.model();
    // One more running call than the log lists past its latest, then the latest: all logged.
    const running = Array.from({ length: MAX_CALLS + 1 }, () =>
      model.callTool({ name: 'up__slow', arguments: {} }),
    );
    const slowRunning = async () =>
      (await fixture.gateway.calls.list()).filter((c) => c.call.tool === 'slow' && c.state === 'running')
        .length;
    await expect.poll(slowRunning).toBe(MAX_CALLS + 1);
    for (let n = 1; n <= MAX_CALLS; n++) {
      const result = await model.callTool({ name: 'up__echo', arguments: { n } });
      expect(result.isError).toBeFalsy();
    }

    // The API says one is left out; the page, opened now, says so under the calls it shows.
    const response = await fetch(`${fixture.handle.apiUrl}/calls`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    const listing = (await response.json()) as { calls: { state: string }[]; runningOmitted?: number };
    expect(listing.calls.map((c) => c.state)).toEqual([
      ...Array<string>(MAX_CALLS).fill('finished'),
      ...Array<string>(MAX_CALLS).fill('running'),
    ]);
    expect(listing.runningOmitted).toBe(1);
    const { page, errors } = await openConsole(browser, fixture, { view: 'activity' });
    stop();
    const list = page.getByRole('list', { name: 'calls' });
    const note = page.getByText(/more running calls? not shown/);
    await note.waitFor();
    expect(await list.locator('li.call.state-running').count()).toBe(MAX_CALLS);
    expect(await note.innerText()).toMatch(/^1 more running call not shown /);

    // They end: the one not shown too, and the page no longer says it.
    slow.open();
    for (const call of running) expect((await call).isError).toBeFalsy();
    await expect.poll(() => list.locator('li.call.state-running').count()).toBe(0);
    await note.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
