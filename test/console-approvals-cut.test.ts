// The console's Approvals view in a real browser, on a gateway whose Redis listing of pending approvals
// stops at its budget (`maxListedApprovals`, 4,000 by default; 1 here, on a throwaway redis-server): with
// two calls held the snapshot lists one and says there are 2; the console reads the next page and shows
// both, oldest first, without saying the list is cut; once one is decided the other stays.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Server, text } from '../src/server/index.js';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import { launchBrowser, openConsole, startConsoleGateway, type ConsoleFixture } from './_console.js';
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
});
