// A card opened alone in a real browser (`#/approvals/ID`, an approval the page's list does not hold: 2,001
// older ones wait, one more than the page keeps): what a person did to it (the reason typed, raw JSON shown) is
// there again when the view is shown again after the list changed (an older approval decided) — as for a
// listed card — and Deny sends the reason typed.
import { describe, expect, it } from 'vitest';
import { openConsole, textOf } from './_console.js';
import { KEPT_BY_PAGE, nextPending, useOlderApprovals } from './_older-approvals.js';

const suite = useOlderApprovals(KEPT_BY_PAGE + 1);

describe('a card opened alone', () => {
  it('keeps the reason typed when the list changes and the view is shown again', async () => {
    const { page, errors, context } = await openConsole(suite.browser, suite.fixture);
    // The page holds 2,000 of the older approvals and counts the last of them and this one.
    const pending = nextPending(suite.fixture);
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'alone.md' } });
    const { id } = await pending;
    await expect.poll(() => page.title()).toBe(`(${KEPT_BY_PAGE + 2}) Approvals · toolwire console`);

    await page.goto(`${suite.fixture.origin}/console/#/approvals/${id}`);
    const card = page.locator(`li.approval[data-approval="${id}"]`);
    await card.getByText('"alone.md"').waitFor();
    await card.getByPlaceholder('Reason (the model reads it)').fill('not this one');
    await card.getByRole('button', { name: 'Show raw JSON' }).click();

    // The list changes: an older approval is decided, the next older one listed in its place.
    await suite.fixture.gateway.approvals.decide(suite.older[0]!, { approve: false, decidedBy: 'test' });
    await expect.poll(() => page.title()).toBe(`(${KEPT_BY_PAGE + 1}) Approvals · toolwire console`);
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { name: 'Audit' }).waitFor();
    await page.goto(`${suite.fixture.origin}/console/#/approvals/${id}`);
    await card.getByText('"alone.md"').waitFor();
    expect(await card.getByPlaceholder('Reason (the model reads it)').inputValue()).toBe('not this one');
    expect(await card.getByRole('button', { name: 'Show as a tree' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await card.getByRole('button', { name: 'Deny' }).click();
    expect(textOf(await call)).toBe('The call of up__delete_file was denied: not this one.');
    expect(errors).toEqual([]);
    await context.close();
  });
});
