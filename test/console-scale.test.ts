// The console at scale, in a real browser: a call log holding 10,000 calls (`maxCalls`) and 1,200 pending
// approvals (more than a page of the listing; a store shared by several instances holds that many). Activity
// lists all 10,000 — each row says its place in them (aria-posinset, aria-setsize) — yet draws a bounded
// number of rows; scrolled to the end it shows the oldest call, and calls arriving from the model come in at
// the top with the rows still bounded; Tab goes from call to call past the rows first drawn. Approvals reads
// every page of the listing and draws a bounded number of cards; scrolled to the end it shows the newest. A
// card scrolled out and back has what was done to it (the reason typed, raw JSON shown), and the card holding
// the focus stays while the keyboard scrolls the page away and back; Tab and Shift+Tab from a focused row kept
// drawn out of the window go to the rows beside it, as the list orders them, and the page scrolls to where
// those rows are in the list.
// Counts and bounds only: no timing.
import { createHash, randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryApprovalStore, MemoryCallLogStore } from '../src/gateway/index.js';
import { CALL_IDS_PER_INSTANCE } from '../src/stores/call-log-store.js';
import { Server, text } from '../src/server/index.js';
import { launchBrowser, openConsole, startConsoleGateway, type ConsoleFixture } from './_console.js';

const CALLS = 10_000;
const APPROVALS = 1_200;
/** Rows a window may draw (console/src/components/windowed-list.tsx draws 120 at most). */
const DRAWN_AT_MOST = 120;
/** The calls put in the log before the gateway starts: ids of an instance of their own (no gaps). */
const FIRST = 3 * CALL_IDS_PER_INSTANCE + 1;
const LAST = FIRST + CALLS - 1;

let browser: Browser;
let closeBrowser: () => Promise<void>;
let fixture: ConsoleFixture;
const approvalIds: string[] = [];

beforeAll(async () => {
  const upstream = new Server({ name: 'up', version: '1.0.0' });
  upstream.tool('echo', { inputSchema: { type: 'object', properties: {} } }, () => text('ok'));
  const calls = new MemoryCallLogStore({ maxCalls: CALLS });
  const startedAt = new Date().toISOString();
  for (let id = FIRST; id <= LAST; id++) {
    const call = {
      id,
      caller: { principal: 'model' },
      upstream: 'up',
      tool: 'echo',
      exposedName: 'up__echo',
      argumentsDigest: 'sha256:0',
    };
    calls.start(call, {}, startedAt);
    calls.finish(id, { decision: 'allowed', outcome: 'ok', durationMs: 1 });
  }
  const approvals = new MemoryApprovalStore();
  const now = Date.now();
  for (let i = 0; i < APPROVALS; i++) {
    const args = { path: `/tmp/file-${i}` };
    const id = randomUUID();
    approvalIds.push(id);
    await approvals.create({
      id,
      createdAt: new Date(now + i).toISOString(),
      expiresAt: new Date(now + 3_600_000).toISOString(),
      caller: { principal: 'model' },
      upstream: 'up',
      tool: 'echo',
      exposedName: 'up__echo',
      arguments: args,
      argumentsDigest: `sha256:${createHash('sha256').update(JSON.stringify(args)).digest('hex')}`,
      reason: 'the policy asks',
    });
  }
  ({ browser, close: closeBrowser } = await launchBrowser());
  fixture = await startConsoleGateway(upstream, [{ tool: '*', action: 'allow' }], {
    stores: { calls, approvals },
  });
}, 60_000);

afterAll(async () => {
  await fixture?.close();
  await closeBrowser?.();
});

const rows = (page: Page, selector: string) => page.locator(selector).count();

/**
 * Where the page shows the focused call: whether it is in the viewport, and whether the calls in the viewport
 * follow one another in the list (their places, aria-posinset, without a gap). At its real place the calls
 * around it are its neighbours; drawn beside a window elsewhere (kept for the focus), they are that window's.
 */
const focusedInPlace = (page: Page) =>
  page.evaluate(() => {
    const inView = (row: Element) => {
      const box = row.getBoundingClientRect();
      return box.bottom > 0 && box.top < innerHeight;
    };
    const focused = document.activeElement?.closest('li.call');
    const places = Array.from(document.querySelectorAll('li.call'))
      .filter(inView)
      .map((row) => Number(row.getAttribute('aria-posinset')))
      .sort((a, b) => a - b);
    return {
      inView: focused ? inView(focused) : false,
      inOrder: places.every((place, i) => i === 0 || place === places[i - 1]! + 1),
    };
  });
const scrollToEnd = (page: Page) => page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));

describe('the console with a full call log and a thousand approvals', () => {
  it('Activity lists 10,000 calls, draws a bounded number, and scrolls to the oldest', async () => {
    const { context, page, errors } = await openConsole(browser, fixture, { view: 'activity' });
    const newest = page.locator(`li.call[data-call="${LAST}"]`);
    await newest.waitFor();
    expect(await newest.getAttribute('aria-setsize')).toBe(String(CALLS));
    expect(await newest.getAttribute('aria-posinset')).toBe('1');
    expect(await rows(page, 'li.call')).toBeLessThanOrEqual(DRAWN_AT_MOST);

    await scrollToEnd(page);
    const oldest = page.locator(`li.call[data-call="${FIRST}"]`);
    await oldest.waitFor();
    await expect.poll(() => oldest.isVisible()).toBe(true);
    expect(await oldest.getAttribute('aria-posinset')).toBe(String(CALLS));
    expect(await rows(page, 'li.call')).toBeLessThanOrEqual(DRAWN_AT_MOST);
    expect(await page.locator(`li.call[data-call="${LAST}"]`).count()).toBe(0);

    // Calls arrive: the newest at the top, the oldest gone past the log's 10,000, the rows still bounded.
    const model = await fixture.model();
    await Promise.all(Array.from({ length: 50 }, () => model.callTool({ name: 'up__echo', arguments: {} })));
    await page.evaluate(() => scrollTo(0, 0));
    const first = page.locator('li.call').first();
    // Polled until the window is drawn at the top again: right after the scroll it may still show the rows
    // near the oldest. The gateway numbers its own calls from 1: the 50th is the newest.
    await expect.poll(() => first.getAttribute('data-call')).toBe('50');
    await expect.poll(() => first.getAttribute('aria-setsize')).toBe(String(CALLS));
    expect(await rows(page, 'li.call')).toBeLessThanOrEqual(DRAWN_AT_MOST);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('Tab goes from call to call past the rows first drawn', async () => {
    const { context, page, errors } = await openConsole(browser, fixture, { view: 'activity' });
    const first = page.locator('li.call').first();
    await first.waitFor();
    const drawn = await rows(page, 'li.call');
    await first.getByRole('button').first().focus();
    const steps = drawn + 20;
    for (let i = 0; i < steps; i++) await page.keyboard.press('Tab');
    const place = await page.evaluate(
      () => document.activeElement?.closest('li.call')?.getAttribute('aria-posinset') ?? null,
    );
    expect(place).toBe(String(steps + 1));
    expect(await rows(page, 'li.call')).toBeLessThanOrEqual(DRAWN_AT_MOST);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('Shift+Tab and Tab from a focused row kept drawn out of the window go to the rows beside it', async () => {
    const { context, page, errors } = await openConsole(browser, fixture, { view: 'activity' });
    const at = (place: number) => page.locator(`li.call[aria-posinset="${place}"]`);
    const focusedPlace = () =>
      page.evaluate(() => document.activeElement?.closest('li.call')?.getAttribute('aria-posinset') ?? null);
    await at(1).waitFor();
    const total = Number(await at(1).getAttribute('aria-setsize'));

    // The oldest call focused, then Home: it stays drawn (out of view), the window at the top.
    await scrollToEnd(page);
    await at(total).waitFor();
    await at(total).getByRole('button').first().focus();
    await page.keyboard.press('Home');
    await expect.poll(() => at(1).isVisible()).toBe(true);
    expect(await focusedPlace()).toBe(String(total));
    await page.keyboard.press('Shift+Tab');
    expect(await focusedPlace()).toBe(String(total - 1));
    // The page scrolled to its real place: near the end, among its neighbours.
    await expect.poll(() => focusedInPlace(page)).toEqual({ inView: true, inOrder: true });
    expect(await page.evaluate(() => scrollY + innerHeight > document.documentElement.scrollHeight / 2)).toBe(
      true,
    );
    expect(await rows(page, 'li.call')).toBeLessThanOrEqual(DRAWN_AT_MOST);

    // The newest call focused, then End: Tab goes to the second.
    await page.evaluate(() => scrollTo(0, 0));
    await at(1).getByRole('button').first().focus();
    await page.keyboard.press('End');
    await expect.poll(() => at(total).isVisible()).toBe(true);
    expect(await focusedPlace()).toBe('1');
    await page.keyboard.press('Tab');
    expect(await focusedPlace()).toBe('2');
    await expect.poll(() => focusedInPlace(page)).toEqual({ inView: true, inOrder: true });
    expect(await page.evaluate(() => scrollY < document.documentElement.scrollHeight / 2)).toBe(true);
    expect(await rows(page, 'li.call')).toBeLessThanOrEqual(DRAWN_AT_MOST);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('Approvals reads every page of the listing, draws a bounded number, and scrolls to the newest', async () => {
    const { context, page, errors } = await openConsole(browser, fixture, { view: 'approvals' });
    const oldest = page.locator(`li.approval[data-approval="${approvalIds[0]}"]`);
    await oldest.waitFor();
    // Every page read: the list says 1,200, and the tab's count too.
    await expect.poll(() => oldest.getAttribute('aria-setsize')).toBe(String(APPROVALS));
    await page.getByLabel(`${APPROVALS} pending`).waitFor();
    expect(await page.getByText(/Showing \d+ of/).count()).toBe(0);
    expect(await rows(page, 'li.approval')).toBeLessThanOrEqual(DRAWN_AT_MOST);

    await scrollToEnd(page);
    const newest = page.locator(`li.approval[data-approval="${approvalIds.at(-1)}"]`);
    await newest.waitFor();
    expect(await newest.getAttribute('aria-posinset')).toBe(String(APPROVALS));
    expect(await rows(page, 'li.approval')).toBeLessThanOrEqual(DRAWN_AT_MOST);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps what was typed in a card scrolled far away and back', async () => {
    const { context, page, errors } = await openConsole(browser, fixture, { view: 'approvals' });
    const selector = `li.approval[data-approval="${approvalIds[0]}"]`;
    const card = page.locator(selector);
    await card.waitFor();
    const reason = card.getByPlaceholder('Reason (the model reads it)');
    await reason.fill('not this file');
    await card.getByRole('button', { name: 'Show raw JSON' }).click();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

    await scrollToEnd(page);
    await page.locator(`li.approval[data-approval="${approvalIds.at(-1)}"]`).waitFor();
    await expect.poll(() => rows(page, selector)).toBe(0);
    await page.evaluate(() => scrollTo(0, 0));
    await card.waitFor();
    expect(await reason.inputValue()).toBe('not this file');
    expect(await card.getByRole('button', { name: 'Show as a tree' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    expect(await rows(page, 'li.approval')).toBeLessThanOrEqual(DRAWN_AT_MOST);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps the focus in its card while the keyboard scrolls to the end and back', async () => {
    const { context, page, errors } = await openConsole(browser, fixture, { view: 'approvals' });
    const card = page.locator(`li.approval[data-approval="${approvalIds[0]}"]`);
    await card.waitFor();
    await expect.poll(() => card.getAttribute('aria-setsize')).toBe(String(APPROVALS));
    const focusedCard = () =>
      page.evaluate(
        () => document.activeElement?.closest('li.approval')?.getAttribute('data-approval') ?? null,
      );
    await card.getByRole('button', { name: 'Show raw JSON' }).focus();

    await page.keyboard.press('End');
    await page.locator(`li.approval[data-approval="${approvalIds.at(-1)}"]`).waitFor();
    expect(await focusedCard()).toBe(approvalIds[0]);
    expect(await rows(page, 'li.approval')).toBeLessThanOrEqual(DRAWN_AT_MOST);
    await page.keyboard.press('Home');
    await expect.poll(() => card.isVisible()).toBe(true);
    expect(await focusedCard()).toBe(approvalIds[0]);
    // The keyboard still acts on the card: Enter on the focused toggle shows raw JSON.
    await page.keyboard.press('Enter');
    await card.getByRole('button', { name: 'Show as a tree' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
