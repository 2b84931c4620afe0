// The pending approvals the console's page keeps, in a real browser: with exactly as many waiting as it keeps
// (2,000), an approval announced on the stream is counted, not added past the cap ("Showing 2000 of 2001
// pending"); when a listed one is decided it takes the freed place, and the list is whole again.
import { describe, expect, it } from 'vitest';
import { openConsole, textOf } from './_console.js';
import { KEPT_BY_PAGE, nextPending, useOlderApprovals } from './_older-approvals.js';

const suite = useOlderApprovals(KEPT_BY_PAGE);

describe('the Approvals view at what the page keeps', () => {
  it('counts an approval past the cap, and lists it when a listed one goes', async () => {
    const { page, errors, context } = await openConsole(suite.browser, suite.fixture);
    await page.getByRole('link', { name: `Approvals, ${KEPT_BY_PAGE} pending`, exact: true }).click();
    await expect.poll(() => page.title()).toBe(`(${KEPT_BY_PAGE}) Approvals · toolwire console`);
    expect(await page.getByText(/Showing \d+ of \d+ pending/).count()).toBe(0);

    const pending = nextPending(suite.fixture);
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'new.md' } });
    const { id } = await pending;
    await expect.poll(() => page.title()).toBe(`(${KEPT_BY_PAGE + 1}) Approvals · toolwire console`);
    // Counted, not listed: the list stays at what the page keeps.
    await page.getByText(`Showing ${KEPT_BY_PAGE} of ${KEPT_BY_PAGE + 1} pending`).waitFor();

    // A listed one is decided: the new one takes its place, and the list is whole again.
    await suite.fixture.gateway.approvals.decide(suite.older[0]!, { approve: false, decidedBy: 'test' });
    await expect.poll(() => page.title()).toBe(`(${KEPT_BY_PAGE}) Approvals · toolwire console`);
    await expect.poll(() => page.getByText(/Showing \d+ of \d+ pending/).count()).toBe(0);

    await page.goto(`${suite.fixture.origin}/console/#/approvals/${id}`);
    const card = page.locator(`li.approval[data-approval="${id}"]`);
    await card.getByText('"new.md"').waitFor();
    await card.getByRole('button', { name: 'Deny' }).click();
    expect(textOf(await call)).toBe('The call of up__delete_file was denied: denied by a person.');
    expect(errors).toEqual([]);
    await context.close();
  });
});
