// The console on a phone, 375 px wide: an approval card stays compact (its actions laid out in a grid of
// their own, not a column of full-width lines) and nothing scrolls sideways; and the sign-in form says why
// Sign in is disabled and what to enter (the button's accessible description), until a token is typed.
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDemoServer } from '../src/cli/demo/create-demo-server.js';
import { useConsoleGateway } from './_console.js';

// The demo's workspace server, as npm start serves it: write_file asks.
const suite = useConsoleGateway(
  () => createDemoServer({ root: mkdtempSync(path.join(tmpdir(), 'toolwire-narrow-')) }),
  [{ tool: 'write_file', action: 'ask' }],
);

/** The tallest an approval card of a short path may be at 375 px (it was ≈800 px). */
const CARD_MAX_PX = 480;

/** An element's accessible description, from the elements its aria-describedby names. */
function description(locator: Locator): Promise<string> {
  return locator.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent?.trim() ?? '')
      .filter((text) => text !== '')
      .join(' '),
  );
}

describe('the console at 375 px', () => {
  it(`draws an approval card at most ${CARD_MAX_PX} px tall, with no sideways scroll`, async () => {
    const context = await suite.browser.newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    await page.goto(suite.fixture.handle.consoleUrl()!);
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    const model = await suite.fixture.model();
    const call = model.callTool({
      name: 'up__write_file',
      arguments: { path: 'notes/today.md', content: 'Buy milk.\nCall Ada.' },
    });
    const card = page.locator('li.approval').filter({ hasText: 'notes/today.md' });
    await card.waitFor();
    const box = await card.boundingBox();
    expect(box!.height).toBeLessThanOrEqual(CARD_MAX_PX);
    expect(box!.width).toBeLessThanOrEqual(375);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    // Every control still there, and usable.
    for (const name of ['Approve', 'Approve always', 'Deny'])
      expect(await card.getByRole('button', { name, exact: true }).isVisible()).toBe(true);
    await card.getByRole('button', { name: 'Deny', exact: true }).click();
    expect((await call).isError).toBe(true);
    await context.close();
  });

  it('says why Sign in is disabled and what to enter, and signs in once a token is typed', async () => {
    const context = await suite.browser.newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    await page.goto(`${suite.fixture.origin}/console/`);
    const button = page.getByRole('button', { name: 'Sign in' });
    await button.waitFor();
    expect(await button.isDisabled()).toBe(true);
    expect(await description(button)).toBe(
      'Enter a token to sign in: the API token the gateway printed (TOOLWIRE_TOKEN), or a token of the approver or watcher role.',
    );
    await page.getByLabel('Token').fill('alice-token');
    expect(await button.isDisabled()).toBe(false);
    expect(await description(button)).toBe('Ready to sign in.');
    await button.click();
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    await context.close();
  });
});
