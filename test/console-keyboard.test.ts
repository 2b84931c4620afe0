// The console with a keyboard only (issue 18): Tab and Shift+Tab reach every control the tests need — the
// views' tabs, Approve, Approve always, Deny, Call, Cancel — each with its accessible name and a visible focus
// ring, and Enter or Space does what a click does: the model gets its result, the call is cancelled.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { Server } from '../src/server/index.js';
import { addDeleteFileTool, gate, openConsole, textOf, useConsoleGateway } from './_console.js';

const slowAborted = gate<string>();

const suite = useConsoleGateway(() => {
  const upstream = new Server({ name: 'files', version: '1.0.0' });
  // Registered first: the Try view opens on it.
  upstream.tool(
    'slow',
    { description: 'Waits until it is cancelled.', inputSchema: { type: 'object', properties: {} } },
    (_args, ctx) =>
      new Promise((_, reject) =>
        ctx.signal.addEventListener(
          'abort',
          () => {
            slowAborted.open(String(ctx.signal.reason));
            reject(new Error('cancelled'));
          },
          { once: true },
        ),
      ),
  );
  addDeleteFileTool(upstream);
  return upstream;
}, [{ tool: 'delete_file', action: 'ask' }]);

const isFocused = (target: Locator) => target.evaluate((element) => element === document.activeElement);

/** Presses `key` (Tab or Shift+Tab) until `target` has the focus; fails after `max` presses. */
async function focusByKeyboard(page: Page, target: Locator, key = 'Tab', max = 40): Promise<void> {
  for (let presses = 0; presses < max; presses++) {
    await page.keyboard.press(key);
    if (await isFocused(target)) return;
  }
  throw new Error(`${max} presses of ${key} did not reach ${target.toString()}`);
}

/** The focused element draws a focus indicator: an outline or a box shadow. */
function focusRing(page: Page): Promise<{ outline: string; boxShadow: string }> {
  return page.evaluate(() => {
    const style = getComputedStyle(document.activeElement ?? document.body);
    return {
      outline: style.outlineStyle === 'none' || style.outlineWidth === '0px' ? 'none' : style.outlineStyle,
      boxShadow: style.boxShadow,
    };
  });
}

async function expectVisibleFocus(page: Page): Promise<void> {
  const ring = await focusRing(page);
  expect(ring.outline !== 'none' || ring.boxShadow !== 'none', JSON.stringify(ring)).toBe(true);
}

describe('the console by keyboard only', () => {
  it('Tab reaches the tabs and the answers of a pending approval; Enter on Approve gives the model its result', async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'kbd.md' } });
    const card = page.getByRole('listitem').filter({ hasText: 'Delete a file' });
    await card.waitFor();

    const tabs = page.getByRole('navigation', { name: 'views' });
    for (const name of ['Approvals', 'Activity', 'Tools', 'Try a tool', 'Upstreams', 'Audit']) {
      await focusByKeyboard(page, tabs.getByRole('link', { name: new RegExp(`^${name}`) }));
      await expectVisibleFocus(page);
    }
    for (const name of ['Approve', 'Approve always', 'Deny']) {
      await focusByKeyboard(page, card.getByRole('button', { name, exact: true }));
      await expectVisibleFocus(page);
    }
    await focusByKeyboard(page, card.getByRole('button', { name: 'Approve', exact: true }), 'Shift+Tab');
    await expectVisibleFocus(page);
    await page.keyboard.press('Enter');
    expect(textOf(await call)).toBe('deleted kbd.md');
    await page.getByRole('list', { name: 'latest decisions' }).getByText('approved by console').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('Enter on the "Try a tool" tab opens the view; Enter on Call runs the tool, Space on Cancel stops it', async () => {
    const { page, errors, by } = await openConsole(suite.browser, suite.fixture);
    await focusByKeyboard(page, page.getByRole('link', { name: 'Try a tool' }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Try a tool' }).waitFor();
    await expect.poll(() => page.getByLabel('Tool', { exact: true }).inputValue()).toBe('up__slow');
    await focusByKeyboard(page, page.getByRole('button', { name: 'Call', exact: true }));
    await expectVisibleFocus(page);
    await page.keyboard.press('Enter');
    const cancel = page.getByRole('button', { name: 'Cancel', exact: true });
    // The gateway's call shows (its elapsed time): Cancel now cancels it there, not just the page's request.
    await page.locator('.running .elapsed').waitFor();
    await focusByKeyboard(page, cancel);
    await expectVisibleFocus(page);
    await page.keyboard.press('Space');
    await slowAborted.promise;
    await page.getByText(`The call of up__slow was cancelled by ${by}.`).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a card decided by keyboard hands the focus to the next card, the last to the heading; Cancel to its call', async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    const focusedApproval = () =>
      page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.approval ?? null);
    const cards = page.getByRole('list', { name: 'pending approvals' }).getByRole('listitem');
    const first = model.callTool({ name: 'up__delete_file', arguments: { path: 'one.md' } });
    await cards.filter({ hasText: 'one.md' }).waitFor();
    const second = model.callTool({ name: 'up__delete_file', arguments: { path: 'two.md' } });
    const two = cards.filter({ hasText: 'two.md' });
    await two.waitFor();
    const twoId = await two.getAttribute('data-approval');

    await focusByKeyboard(page, cards.first().getByRole('button', { name: 'Approve', exact: true }));
    await page.keyboard.press('Enter');
    expect(textOf(await first)).toBe('deleted one.md');
    // The focus is on the card that took the decided one's place, not back at the top of the page.
    await expect.poll(focusedApproval).toBe(twoId);
    await expectVisibleFocus(page);
    await page.keyboard.press('Tab');
    expect(await isFocused(two.getByRole('button', { name: 'Show raw JSON' }))).toBe(true);

    await focusByKeyboard(page, two.getByRole('button', { name: 'Deny', exact: true }));
    await page.keyboard.press('Enter');
    expect(await second).toMatchObject({ isError: true });
    await expect.poll(() => isFocused(page.getByRole('heading', { name: 'Approvals', level: 2 }))).toBe(true);

    await focusByKeyboard(page, page.getByRole('link', { name: 'Activity' }));
    await page.keyboard.press('Enter');
    const slow = model.callTool({ name: 'up__slow', arguments: {} }).catch((error: Error) => error);
    const row = page.locator('li.call.state-running').filter({ hasText: 'up__slow' });
    await row.waitFor();
    const id = await row.getAttribute('data-call');
    await focusByKeyboard(page, page.getByRole('button', { name: `Cancel call #${id}` }));
    await page.keyboard.press('Enter');
    await page.locator(`li.call[data-call="${id}"]:not(.state-running)`).waitFor();
    await expect.poll(() => isFocused(page.getByRole('button', { name: `#${id} up__slow` }))).toBe(true);
    await slow;
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('tells a screen reader when an approval arrives, in a polite live region, whatever view is shown', async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture, { view: 'tools' });
    // There, empty, before anything arrives: a live region added with its text is not announced.
    const region = page.locator('.visually-hidden[role="status"]');
    expect(await region.count()).toBe(1);
    expect(await region.textContent()).toBe('');
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'heard.md' } });
    await expect
      .poll(() => region.textContent())
      .toMatch(/^Approval needed: up__delete_file \(up\), from session [0-9a-f]{8}$/);
    for (const approval of await suite.fixture.gateway.approvals.pending())
      await suite.fixture.gateway.approvals.decide(approval.id, { approve: false, decidedBy: 'test' });
    expect((await call).isError).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
