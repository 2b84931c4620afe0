// The console against an upstream whose tools' schemas attack the page that draws them
// (fixtures/hostile-schema-server.mjs, raw JSON-RPC over stdio): opening "Try a tool" and calling each
// tool ends with an outcome the page shows — a form, a message, a result — never a frozen or blank tab;
// a result whose outputSchema is catastrophic for a backtracking engine opens in Activity; a view that
// fails to draw says so and the others, Approvals above all, keep working; a malformed % escape in the
// address is a "no such tool", not a blank page; an approval's heading is the gateway's name of the
// tool, not the title the upstream claims, and its description shows a right-to-left override escaped.
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser, openConsole, startConsoleGatewayOverStdio, type ConsoleFixture } from './_console.js';

const SERVER = fileURLToPath(new URL('./fixtures/hostile-schema-server.mjs', import.meta.url));

let browser: Browser;
let closeBrowser: () => Promise<void>;
let fixture: Omit<ConsoleFixture, 'upstream'>;

beforeAll(async () => {
  ({ browser, close: closeBrowser } = await launchBrowser());
  fixture = await startConsoleGatewayOverStdio(SERVER, [{ tool: 'delete_everything', action: 'ask' }]);
}, 30_000);

// Each test starts with nothing pending (one that failed may have left an approval).
beforeEach(async () => {
  for (const approval of await fixture.gateway.approvals.pending())
    await fixture.gateway.approvals
      .decide(approval.id, { approve: false, decidedBy: 'test' })
      .catch(() => undefined);
});

afterAll(async () => {
  await fixture?.close();
  await closeBrowser?.();
});

/** The model asks for delete_everything; the page shows its approval card (Approvals works). */
async function approvalIsDrawn(page: Page): Promise<void> {
  const model = await fixture.model();
  const call = model.callTool({ name: 'evil__delete_everything', arguments: { path: 'a.txt' } });
  await page.goto(`${fixture.origin}/console/#/approvals`);
  const card = page.locator('li.approval');
  await card.waitFor({ timeout: 10_000 });
  await card.getByRole('button', { name: 'Deny', exact: true }).click();
  await call;
  await card.waitFor({ state: 'detached' });
}

describe('hostile schemas', () => {
  for (const [tool, outcome] of [
    // Too large for a form: edited as JSON, sent, and the gateway answers.
    ['exp_initial', (page: Page) => page.getByRole('note').getByText('too large for a form').waitFor()],
    ['recursive_not', undefined],
    ['exp_anyof', undefined],
    // The default breaks the pattern: said at once (a linear-time engine), nothing sent.
    [
      'redos_input',
      (page: Page) => page.getByRole('alert').getByText('s must match the pattern ^(a+)+$').waitFor(),
    ],
  ] as const) {
    it(`the Try view of ${tool} draws, Call ends with an outcome, and Approvals still works`, async () => {
      const { page, errors } = await openConsole(browser, fixture, { view: `try/evil__${tool}` });
      const form = page.getByRole('form', { name: `call evil__${tool}` });
      await form.waitFor({ timeout: 5_000 });
      await form.getByRole('button', { name: 'Call', exact: true }).click({ timeout: 5_000 });
      // Whatever the outcome — the result, the gateway's refusal, the form's messages — the page shows one.
      await page
        .getByRole('region', { name: 'result' })
        .or(page.locator('.form-issues, .try-form .error-text'))
        .first()
        .waitFor({ timeout: 5_000 });
      if (outcome) await outcome(page);
      expect(await page.evaluate(() => 1)).toBe(1);
      await approvalIsDrawn(page);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it('a result whose outputSchema is catastrophic for a backtracking engine opens in Activity', async () => {
    const { page, errors } = await openConsole(browser, fixture, { view: 'activity' });
    const model = await fixture.model();
    await model.callTool({ name: 'evil__redos_output', arguments: {} });
    await page.getByRole('button', { name: /evil__redos_output/ }).click();
    await page.getByTestId('result').getByText('matches outputSchema').waitFor({ timeout: 5_000 });
    await approvalIsDrawn(page);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a view that fails to draw says so, and the other views keep working', async () => {
    const { page } = await openConsole(browser, fixture, { view: 'audit' });
    await page.locator('table.audit tbody tr').first().waitFor(); // the earlier tests' records
    // Drawing an audit record's time now throws, as an unexpected value from the gateway would.
    await page.evaluate(() => {
      Date.prototype.toLocaleTimeString = () => {
        throw new Error('drawing failed on purpose');
      };
    });
    await page.goto(`${fixture.origin}/console/#/activity`);
    await page.goto(`${fixture.origin}/console/#/audit`);
    const failed = page.getByRole('alert').filter({ hasText: 'This view failed' });
    await failed.waitFor();
    expect(await failed.innerText()).toContain('drawing failed on purpose');
    await page.getByRole('link', { name: 'Tools' }).click();
    await page.getByRole('heading', { name: 'Tools' }).waitFor();
    await approvalIsDrawn(page);
    await page.context().close();
  });

  it('a malformed % escape in the address is a "no such tool", and the other views work', async () => {
    const { page, errors } = await openConsole(browser, fixture);
    await page.goto(`${fixture.origin}/console/#/try/%E0%A4%A`);
    await page.getByText('No tool %E0%A4%A.').waitFor();
    await approvalIsDrawn(page);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("an approval's heading is the gateway's name of the tool; the upstream's title and description are its claims, escaped", async () => {
    const { page } = await openConsole(browser, fixture);
    const model = await fixture.model();
    const call = model.callTool({ name: 'evil__delete_everything', arguments: { path: 'b.txt' } });
    const card = page.locator('li.approval');
    await card.waitFor();
    expect(await card.locator('h3').innerText()).toBe('evil__delete_everything (evil)');
    const text = await card.innerText();
    expect(text).toContain('titled by the upstream: “evil__read_file”');
    expect(text).toContain('Reads a file. \\u202etxt.exe');
    expect(text).not.toContain('\u202e');
    await card.getByRole('button', { name: 'Deny', exact: true }).click();
    await call;
    await page.context().close();
  });
});
