// The console's Approvals view in a real browser, on a gateway whose Redis listing of pending approvals
// stops at its budget (`maxListedApprovals`, 4,000 by default; 1 here, on a throwaway redis-server): with
// two calls held the snapshot lists one and says there are 2; the console reads the next page and shows
// both, oldest first, without saying the list is cut; once one is decided the other stays. A next page the
// gateway fails to answer (500, once) is read again, the page saying meanwhile that the list is incomplete.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Server, text } from '../src/server/index.js';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import { gate, launchBrowser, openConsole, startConsoleGateway, type ConsoleFixture } from './_console.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

let browser: Browser;
let closeBrowser: () => Promise<void>;
let fixture: ConsoleFixture;
let redis: RedisServerHandle;
let stores: RedisStores;

beforeAll(async () => {
  redis = await startRedis();
  stores = redisStores(redis.url, { prefix: 'console-cut:', gateway: { maxListedApprovals: 1 } });
  const upstream = new Server({ name: 'files', version: '1.0.0' });
  upstream.tool(
    'delete_file',
    {
      title: 'Delete a file',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    (args) => text(`deleted ${String((args as { path: string }).path)}`),
  );
  ({ browser, close: closeBrowser } = await launchBrowser());
  fixture = await startConsoleGateway(upstream, [{ tool: 'delete_file', action: 'ask' }], {
    stores: {
      approvals: stores.approvals,
      grants: stores.grants,
      audit: stores.audit,
      calls: stores.calls,
      bus: stores.bus,
    },
  });
});

afterAll(async () => {
  await fixture?.close();
  await closeBrowser?.();
  await stores?.close();
  await redis?.close();
});

const textOf = (result: unknown) => (result as { content: { text?: string }[] }).content[0]?.text;

describe('the Approvals view, its listing cut', () => {
  it('reads the next pages of a listing cut at its budget, and lists them all', async () => {
    const model = await fixture.model();
    const first = model.callTool({ name: 'up__delete_file', arguments: { path: 'first.md' } });
    // A page open meanwhile sees both held (its snapshot, then an event): so both are in Redis.
    const watching = await openConsole(browser, fixture);
    await watching.page.getByRole('listitem').filter({ hasText: 'first.md' }).waitFor();
    const second = model.callTool({ name: 'up__delete_file', arguments: { path: 'second.md' } });
    await watching.page.getByRole('listitem').filter({ hasText: 'second.md' }).waitFor();
    // A page opened now gets the listing's snapshot (the oldest one, and the count), then the next page.
    const { page, errors } = await openConsole(browser, fixture);
    const cards = page.getByRole('list', { name: 'pending approvals' }).getByRole('listitem');
    await expect.poll(() => cards.count()).toBe(2);
    expect(await cards.first().innerText()).toContain('first.md');
    expect(await cards.nth(1).innerText()).toContain('second.md');
    expect(await page.getByText(/Showing \d+ of \d+ pending/).count()).toBe(0);

    await cards.first().getByRole('button', { name: 'Approve', exact: true }).click();
    expect(textOf(await first)).toBe('deleted first.md');
    await page.getByRole('listitem').filter({ hasText: 'second.md' }).waitFor();
    expect(await page.getByText(/Showing \d+ of \d+ pending/).count()).toBe(0);
    await page
      .getByRole('listitem')
      .filter({ hasText: 'second.md' })
      .getByRole('button', { name: 'Deny' })
      .click();
    expect((await second).isError).toBe(true);
    expect(errors).toEqual([]);
    expect(watching.errors).toEqual([]);
    await page.context().close();
    await watching.page.context().close();
  });
  it('reads again a next page the gateway failed to answer, saying meanwhile that the list is incomplete', async () => {
    const model = await fixture.model();
    const watching = await openConsole(browser, fixture);
    const first = model.callTool({ name: 'up__delete_file', arguments: { path: 'third.md' } });
    await watching.page.getByRole('listitem').filter({ hasText: 'third.md' }).waitFor();
    const second = model.callTool({ name: 'up__delete_file', arguments: { path: 'fourth.md' } });
    await watching.page.getByRole('listitem').filter({ hasText: 'fourth.md' }).waitFor();

    // The next page's first read answers 500; the second goes on once the page has said what it lacks.
    let reads = 0;
    const said = gate();
    const { page, errors } = await openConsole(browser, fixture, {
      before: (context) =>
        context.route(
          (url) => url.pathname === '/api/approvals' && url.searchParams.has('cursor'),
          async (route) => {
            if (++reads === 1) return route.fulfill({ status: 500, body: '' });
            await said.promise;
            await route.continue();
          },
        ),
    });
    const cards = page.getByRole('list', { name: 'pending approvals' }).getByRole('listitem');
    const incomplete = page.getByRole('alert').filter({ hasText: 'Showing 1 of 2 pending' });
    await incomplete.waitFor();
    expect(await incomplete.innerText()).toContain('could not be read (The gateway answered 500)');
    expect(await cards.count()).toBe(1);
    said.open();
    await expect.poll(() => cards.count()).toBe(2);
    expect(await cards.nth(1).innerText()).toContain('fourth.md');
    expect(await incomplete.count()).toBe(0);
    expect(await page.getByText(/Showing \d+ of \d+ pending/).count()).toBe(0);
    expect(reads).toBe(2);

    for (const path of ['third.md', 'fourth.md'])
      await cards.filter({ hasText: path }).getByRole('button', { name: 'Approve', exact: true }).click();
    expect(textOf(await first)).toBe('deleted third.md');
    expect(textOf(await second)).toBe('deleted fourth.md');
    // The browser logs the 500 it was answered; nothing else.
    expect(errors.filter((e) => !e.includes('status of 500'))).toEqual([]);
    expect(watching.errors).toEqual([]);
    await page.context().close();
    await watching.page.context().close();
  });
});
