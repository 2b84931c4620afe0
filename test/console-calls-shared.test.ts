// Two gateways sharing a Redis call log and bus (each numbers its calls from a range of its own: instance n
// from n × 2^32), the console on the first: a call the first makes while the page is away is read on the
// next reconnection and shown where it started, on top, though its id is below those of the other
// instance's calls shown (the console placed by id: it went last and was cut by the row limit).
import { describe, expect, it } from 'vitest';
import { Server, text } from '../src/server/index.js';
import { openConsole } from './_console.js';
import { sharedConsole, type SharedInstance } from './_shared-console.js';

/** The calls each store keeps (and the console's rows). */
const KEPT = 3;

const shared = sharedConsole('console-pair:');

/** A gateway (an instance) on the shared Redis, with stores of its own, as another process would have. */
function instance(): Promise<SharedInstance> {
  const upstream = new Server({ name: 'up', version: '1.0.0' });
  upstream.tool('echo', { inputSchema: { type: 'object', properties: {} } }, () => text('ok'));
  return shared.instance(
    upstream,
    [{ tool: '*', action: 'allow' }],
    (own) => ({ calls: own.calls, bus: own.bus }),
    { gateway: { calls: { maxCalls: KEPT } } },
  );
}

describe('Activity over two gateways sharing a call log', () => {
  it("shows a call made while the page was away on top, below the other instance's ids", async () => {
    const a = await instance();
    const b = await instance();
    const { page, errors } = await openConsole(shared.browser, a.fixture, { view: 'activity' });
    const list = page.getByRole('list', { name: 'calls' });
    const other = await b.fixture.model();
    for (let i = 0; i < KEPT; i++) await other.callTool({ name: 'up__echo', arguments: {} });
    await b.stores.calls.flushed();
    const theirs = (await b.stores.calls.list(KEPT)).map((c) => c.call.id);
    await page.reload(); // the listing: theirs
    await expect.poll(() => list.locator('li.call').first().getAttribute('aria-setsize')).toBe(String(KEPT));
    expect(await list.locator('li.call').first().getAttribute('data-call')).toBe(String(theirs[0]));

    // The page away (its stream refused, the gateway restarted); a call on the first instance meanwhile.
    await page.route('**/api/events', (route) => route.abort());
    await a.fixture.restart();
    await page.getByRole('status').filter({ hasText: 'reconnecting' }).waitFor();
    const model = await a.fixture.model();
    await model.callTool({ name: 'up__echo', arguments: {} }); // logged: the grace after the page left
    await a.stores.calls.flushed();
    const ours = (await a.stores.calls.list(1))[0]!.call.id;
    expect(ours).toBeLessThan(Math.min(...theirs));
    await page.unroute('**/api/events');
    await list.locator(`li.call.state-ok[data-call="${ours}"]`).waitFor();
    expect(await list.locator('li.call').first().getAttribute('data-call')).toBe(String(ours));
    expect(await list.locator('li.call').first().getAttribute('aria-setsize')).toBe(String(KEPT));
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
