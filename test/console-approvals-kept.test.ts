// The pending approvals the console's page keeps, in a real browser: with exactly as many waiting as it keeps
// (2,000), an approval announced on the stream is counted, not added past the cap ("Showing 2000 of 2001
// pending"); when a listed one is decided it takes the freed place, and the list is whole again.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Server } from '../src/server/index.js';
import {
  addDeleteFileTool,
  launchBrowser,
  openConsole,
  startConsoleGateway,
  textOf,
  type ConsoleFixture,
} from './_console.js';
import { KEPT_BY_PAGE, nextPending, olderApprovals } from './_older-approvals.js';

let browser: Browser;
let closeBrowser: () => Promise<void>;
let fixture: ConsoleFixture;
let older: string[] = [];

beforeAll(async () => {
  const { approvals, ids } = await olderApprovals(KEPT_BY_PAGE);
  older = ids;
  const upstream = new Server({ name: 'files', version: '1.0.0' });
  addDeleteFileTool(upstream);
  ({ browser, close: closeBrowser } = await launchBrowser());
  fixture = await startConsoleGateway(upstream, [{ tool: 'delete_file', action: 'ask' }], {
    stores: { approvals },
  });
}, 60_000);

afterAll(async () => {
  await fixture?.close();
  await closeBrowser?.();
});

describe('the Approvals view at what the page keeps', () => {
  it('counts an approval past the cap, and lists it when a listed one goes', async () => {
    const { page, errors, context } = await openConsole(browser, fixture);
    await page.getByRole('link', { name: `Approvals, ${KEPT_BY_PAGE} pending`, exact: true }).click();
    await expect.poll(() => page.title()).toBe(`(${KEPT_BY_PAGE}) Approvals · toolwire console`);
    expect(await page.getByText(/Showing \d+ of \d+ pending/).count()).toBe(0);

    const pending = nextPending(fixture);
    const model = await fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'new.md' } });
    const { id } = await pending;
    await expect.poll(() => page.title()).toBe(`(${KEPT_BY_PAGE + 1}) Approvals · toolwire console`);
    // Counted, not listed: the list stays at what the page keeps.
    await page.getByText(`Showing ${KEPT_BY_PAGE} of ${KEPT_BY_PAGE + 1} pending`).waitFor();

    // A listed one is decided: the new one takes its place, and the list is whole again.
    await fixture.gateway.approvals.decide(older[0]!, { approve: false, decidedBy: 'test' });
    await expect.poll(() => page.title()).toBe(`(${KEPT_BY_PAGE}) Approvals · toolwire console`);
    await expect.poll(() => page.getByText(/Showing \d+ of \d+ pending/).count()).toBe(0);

    await page.goto(`${fixture.origin}/console/#/approvals/${id}`);
    const card = page.locator(`li.approval[data-approval="${id}"]`);
    await card.getByText('"new.md"').waitFor();
    await card.getByRole('button', { name: 'Deny' }).click();
    expect(textOf(await call)).toBe('The call of up__delete_file was denied: denied by a person.');
    expect(errors).toEqual([]);
    await context.close();
  });
});
