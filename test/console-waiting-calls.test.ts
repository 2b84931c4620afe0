// Activity's waiting state at any count of pending approvals, in a real browser: with 2,001 approvals pending
// before it (one more than the Approvals view keeps: console/src/approval-pages.ts KEPT_APPROVALS), a call the
// model makes that needs approval is listed as waiting, not running — on a page open as it starts (the
// approval's event names the call) and on one opened afterwards (the call log's listing says the call waits)
// — and as ok once approved from its card, which its row links to though the page's list of approvals
// stops before it (at what it keeps); with the call log in memory and in Redis alike.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCallLogStore, type CallLogStore } from '../src/gateway/index.js';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import {
  ASK_BEFORE_DELETE,
  filesUpstream,
  launchBrowser,
  openConsole,
  startConsoleGateway,
  textOf,
  type ConsoleFixture,
} from './_console.js';
import { KEPT_BY_PAGE, nextPending, olderApprovals } from './_older-approvals.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

let browser: Browser;
let closeBrowser: () => Promise<void>;
let redis: RedisServerHandle;
let redisOwn: RedisStores;

beforeAll(async () => {
  redis = await startRedis();
  redisOwn = redisStores(redis.url, { prefix: 'console-waiting:' });
  ({ browser, close: closeBrowser } = await launchBrowser());
});

afterAll(async () => {
  await closeBrowser?.();
  await redisOwn?.close();
  await redis?.close();
});

describe.each([
  ['in memory', () => new MemoryCallLogStore()],
  ['in Redis', () => redisOwn.calls],
] as [string, () => CallLogStore][])(
  'Activity past the approvals the page keeps, call log %s',
  (_, calls) => {
    let fixture: ConsoleFixture;

    beforeAll(async () => {
      fixture = await startConsoleGateway(filesUpstream(), ASK_BEFORE_DELETE, {
        stores: { approvals: (await olderApprovals(KEPT_BY_PAGE + 1)).approvals, calls: calls() },
      });
    }, 60_000);

    afterAll(async () => {
      await fixture?.close();
    });

    it('lists a call waiting for approval as waiting, as it starts and when the page opens later', async () => {
      const open = await openConsole(browser, fixture, { view: 'activity' });
      const model = await fixture.model();
      const pending = nextPending(fixture);
      const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'new.md' } });
      const { id, callId } = await pending;
      const state = `li.call[data-call="${callId}"] .badge.state`;
      await open.page.locator(state, { hasText: /^(waiting|running)$/ }).waitFor();
      await expect.poll(() => open.page.locator(state).innerText()).toBe('waiting');

      const later = await openConsole(browser, fixture, { view: 'activity' });
      await later.page.locator(state, { hasText: /^(waiting|running)$/ }).waitFor();
      expect(await later.page.locator(state).innerText()).toBe('waiting');

      // Its link leads to its card, which the list (the 2,001 older ones) leaves out; the card has the focus.
      await later.page
        .locator(`li.call[data-call="${callId}"]`)
        .getByRole('link', { name: `Approval of call #${callId}: see it in Approvals` })
        .click();
      const card = later.page.locator(`li.approval[data-approval="${id}"]`);
      await card.getByText('"new.md"').waitFor({ timeout: 10_000 });
      await expect.poll(() => card.evaluate((li) => li === document.activeElement)).toBe(true);
      await card.getByRole('button', { name: 'Approve', exact: true }).click();
      expect(textOf(await call)).toBe('deleted new.md');
      await later.page
        .getByRole('status')
        .filter({ hasText: 'up__delete_file: approved by console' })
        .waitFor();
      await later.page.goto(`${fixture.origin}/console/#/activity`);
      for (const { page } of [open, later]) await page.locator(state, { hasText: 'ok' }).waitFor();
      expect([...open.errors, ...later.errors]).toEqual([]);
      await open.context.close();
      await later.context.close();
    });
  },
);
