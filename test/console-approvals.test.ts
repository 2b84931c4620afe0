// The console's Approvals view in a real browser, end to end: an official SDK client (the model) calls a
// destructive tool through the gateway, the console shows the pending approval with its arguments, and a
// person's click decides what the model gets — approve, deny with a reason, no decision (expiry), approve
// always, arguments too long to list loaded on request — while a second person's page sees the same decision, with who took it.
import { describe, expect, it } from 'vitest';
import { Server, text } from '../src/server/index.js';
import { openConsole, screenshot, textOf, useConsoleGateway } from './_console.js';

const suite = useConsoleGateway(() => {
  const upstream = new Server({ name: 'files', version: '1.0.0' });
  upstream.tool(
    'delete_file',
    {
      title: 'Delete a file',
      description: 'Deletes one file of the workspace.',
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          options: { type: 'object', properties: { force: { type: 'boolean' } } },
        },
        required: ['path'],
      },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args) => text(`deleted ${String((args as { path: string }).path)}`),
  );
  return upstream;
}, [{ tool: 'delete_file', action: 'ask' }]);

describe('the Approvals view', () => {
  it('shows a pending call with its arguments; Approve gives the model its result', async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    const call = model.callTool({
      name: 'up__delete_file',
      arguments: { path: 'notes/old.md', options: { force: true } },
    });
    const card = page.getByRole('listitem').filter({ hasText: 'Delete a file' });
    await card.waitFor();
    await expect.poll(() => page.title()).toBe('(1) Approvals · toolwire console');
    // The view's link says the count apart from its name, to a screen reader too.
    const views = page.getByRole('navigation', { name: 'views' });
    const approvalsLink = (name: string) => views.getByRole('link', { name, exact: true }).count();
    await expect.poll(() => approvalsLink('Approvals, 1 pending')).toBe(1);
    expect(await card.getByRole('group', { name: 'arguments' }).innerText()).toContain('"notes/old.md"');
    await card.getByRole('button', { name: 'Show raw JSON' }).click();
    expect(JSON.parse(await card.getByLabel('arguments').innerText())).toEqual({
      path: 'notes/old.md',
      options: { force: true },
    });
    expect(await card.getByRole('timer').innerText()).toMatch(/expires in \d:\d\d/);
    expect(await card.innerText()).toContain('destructive');
    await screenshot(page, 'approvals-light');
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    expect(textOf(await call)).toBe('deleted notes/old.md');
    await page.getByRole('list', { name: 'latest decisions' }).getByText('approved by console').waitFor();
    await expect.poll(() => page.title()).toBe('Approvals · toolwire console');
    await expect.poll(() => approvalsLink('Approvals')).toBe(1);
    // The title names the view shown.
    await views.getByRole('link', { name: 'Activity' }).click();
    await expect.poll(() => page.title()).toBe('Activity · toolwire console');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("tells apart the cards and the decisions of one tool by their approvals' ids", async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    const calls = ['one.md', 'two.md'].map((path) =>
      model.callTool({ name: 'up__delete_file', arguments: { path } }),
    );
    const cards = page.getByRole('list', { name: 'pending approvals' }).getByRole('listitem');
    await expect.poll(() => cards.count()).toBe(2);
    const pending = await suite.fixture.gateway.approvals.pending();
    const idOf = (path: string) => pending.find((a) => a.arguments?.path === path)!.id;
    const [one, two] = [idOf('one.md'), idOf('two.md')];
    // Each card is named by its tool and its id, and its answers are described so.
    for (const id of [one, two]) {
      const card = page.getByRole('listitem', { name: `up__delete_file (up) id: ${id.slice(0, 8)}` });
      expect(await card.count()).toBe(1);
      const described = await card.getByRole('button', { name: 'Approve', exact: true }).evaluate((button) =>
        (button.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((ref) => document.getElementById(ref)?.textContent ?? '')
          .join(' '),
      );
      expect(described).toBe(`up__delete_file (up) id: ${id.slice(0, 8)}`);
    }
    await page
      .getByRole('listitem', { name: `up__delete_file (up) id: ${one.slice(0, 8)}` })
      .getByRole('button', { name: 'Approve', exact: true })
      .click();
    await page
      .getByRole('listitem', { name: `up__delete_file (up) id: ${two.slice(0, 8)}` })
      .getByRole('button', { name: 'Deny' })
      .click();
    expect(textOf(await calls[0])).toBe('deleted one.md');
    expect((await calls[1])!.isError).toBe(true);
    // The latest decisions say which approval each was.
    const decisions = page.getByRole('list', { name: 'latest decisions' }).getByRole('listitem');
    await expect
      .poll(() => decisions.allInnerTexts())
      .toEqual([
        expect.stringContaining(`id: ${two.slice(0, 8)} denied by console`),
        expect.stringContaining(`id: ${one.slice(0, 8)} approved by console`),
      ]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("says in the call's detail on Activity that it waits for approval, with a link to Approvals", async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture, { view: 'activity' });
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'notes/waiting.md' } });
    const row = page.getByRole('list', { name: 'calls' }).locator('li.call.state-waiting');
    await row.getByRole('button', { name: /up__delete_file/ }).click();
    await row.getByText(/^Waits for approval: see it in Approvals \(asked .+, expires .+\)\.$/).waitFor();
    await row.getByRole('link', { name: 'see it in Approvals', exact: true }).click();
    const card = page.getByRole('listitem').filter({ hasText: 'notes/waiting.md' });
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    expect(textOf(await call)).toBe('deleted notes/waiting.md');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('lays out Approve always, its period (in plain words) and what it means apart: none touches the next', async () => {
    const { page } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'spaced.md' } });
    const card = page.getByRole('listitem').filter({ hasText: 'Delete a file' });
    await card.waitFor();
    const box = async (locator: ReturnType<typeof card.getByText>) => (await locator.boundingBox())!;
    const button = await box(card.getByRole('button', { name: 'Approve always' }));
    const period = await box(card.getByLabel('Approve always for'));
    const meaning = await box(card.getByText(/^this tool, session [0-9a-f]{8} only: for 1 hour$/));
    expect(period.x - (button.x + button.width)).toBeGreaterThanOrEqual(4);
    // On the period's line (the page is 1100 px wide), what it means starts a gap after it.
    expect(Math.abs(meaning.y + meaning.height / 2 - (period.y + period.height / 2))).toBeLessThan(4);
    expect(meaning.x - (period.x + period.width)).toBeGreaterThanOrEqual(4);
    expect(await card.getByLabel('Approve always for').locator('option').allInnerTexts()).toEqual([
      'for 1 hour',
      'for 8 hours',
      'for 24 hours',
      'for 7 days',
      'until the gateway restarts',
    ]);
    await card.getByLabel('Approve always for').selectOption('restart');
    await card
      .getByText(/^this tool, session [0-9a-f]{8} only: until the gateway restarts \(24 hours on Redis\)$/)
      .waitFor();
    await card.getByRole('button', { name: 'Deny' }).click();
    expect((await call).isError).toBe(true);
    await page.context().close();
  });

  it('shows characters that would reorder or hide an argument as their escapes', async () => {
    const { page } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    // Shown as is, the override would make the path read "evilhs.png".
    const path = 'evil\u202egnp.sh\u200b';
    const call = model.callTool({ name: 'up__delete_file', arguments: { path, ['\u2066key']: 1 } });
    const card = page.getByRole('listitem').filter({ hasText: 'Delete a file' });
    await card.waitFor();
    const tree = await card.getByRole('group', { name: 'arguments' }).innerText();
    expect(tree).toContain('"evil\\u202egnp.sh\\u200b"');
    expect(tree).toContain('\\u2066key');
    expect(tree).not.toMatch(/[\u202e\u200b\u2066]/);
    await card.getByRole('button', { name: 'Show raw JSON' }).click();
    const raw = await card.getByLabel('arguments').innerText();
    expect(raw).not.toMatch(/[\u202e\u200b\u2066]/);
    expect(JSON.parse(raw)).toEqual({ path, ['\u2066key']: 1 });
    await card.getByRole('button', { name: 'Deny' }).click();
    expect((await call).isError).toBe(true);
    await page.context().close();
  });

  it('arguments too long to list come on request; Approve waits until they are shown', async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    const path = `long/${'p'.repeat(40_000)}.md`;
    const call = model.callTool({ name: 'up__delete_file', arguments: { path } });
    const card = page.getByRole('listitem').filter({ hasText: 'Delete a file' });
    await card.getByText(/\d+ bytes, too long to list/).waitFor();
    const approve = card.getByRole('button', { name: 'Approve', exact: true });
    expect(await approve.isDisabled()).toBe(true);
    await card.getByRole('button', { name: 'Show the arguments' }).click();
    await card.getByRole('button', { name: 'Show raw JSON' }).click();
    expect(JSON.parse(await card.getByLabel('arguments').innerText())).toEqual({ path });
    await approve.click();
    expect(textOf(await call)).toBe(`deleted ${path}`);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('Deny with a reason gives the model an isError result that says it', async () => {
    const { page, by } = await openConsole(suite.browser, suite.fixture, { colorScheme: 'dark' });
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'keep.md' } });
    const card = page.getByRole('listitem').filter({ hasText: 'Delete a file' });
    await card.waitFor();
    await screenshot(page, 'approvals-dark');
    await card.getByPlaceholder('Reason (the model reads it)').fill('keep.md stays');
    await card.getByRole('button', { name: 'Deny' }).click();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('The call of up__delete_file was denied: keep.md stays.');
    await page.getByText(`denied by ${by}: keep.md stays`).waitFor();
    // Its detail in Activity says the gateway answered so, not the tool (which never ran).
    await page.goto(`${suite.fixture.origin}/console/#/activity`);
    const row = page.getByRole('list', { name: 'calls' }).getByRole('listitem').filter({ hasText: 'denied' });
    await row
      .first()
      .getByRole('button', { name: /up__delete_file/ })
      .click();
    // A call that ended before it was opened: its banner is text, not an alert.
    const banner = row.first().locator('.error-banner');
    await banner.waitFor();
    expect(await banner.innerText()).toBe(
      'Not run: the gateway refused the call (the model read this error)',
    );
    expect(await row.first().getByRole('alert').count()).toBe(0);
    await page.context().close();
  });

  it('keeps what was done to a card while another view is shown, and denies with the reason typed', async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'away.md' } });
    const card = page.getByRole('listitem').filter({ hasText: 'Delete a file' });
    await card.waitFor();
    await card.getByPlaceholder('Reason (the model reads it)').fill('not while I am away');
    await card.getByRole('button', { name: 'Show raw JSON' }).click();
    await card.getByLabel('Approve always for').selectOption('8h');

    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    expect(await card.count()).toBe(0);
    await page.getByRole('link', { name: /^Approvals/ }).click();
    await card.waitFor();
    expect(await card.getByPlaceholder('Reason (the model reads it)').inputValue()).toBe(
      'not while I am away',
    );
    expect(await card.getByRole('button', { name: 'Show as a tree' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    expect(await card.getByLabel('Approve always for').inputValue()).toBe('8h');
    await card.getByRole('button', { name: 'Deny' }).click();
    const result = await call;
    expect(textOf(result)).toBe('The call of up__delete_file was denied: not while I am away.');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('an approval no one decides expires: the model gets an isError result, the page says so', async () => {
    const { page } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    suite.fixture.gateway.approvals.timeoutMs = 1_500;
    try {
      const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'late.md' } });
      await page.getByRole('listitem').filter({ hasText: 'Delete a file' }).waitFor();
      const result = await call;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        'The gateway did not run up__delete_file: no one approved the call in time.',
      );
      await page.getByText('expired (no one decided in time)').waitFor();
      await page.getByText('Nothing waits for a decision.').waitFor();
    } finally {
      suite.fixture.gateway.approvals.timeoutMs = 120_000;
    }
    await page.context().close();
  });

  it('two people watch: a decision shows on both pages, with who took it; Approve always lets the next call through', async () => {
    const alice = await openConsole(suite.browser, suite.fixture, { token: 'alice-token' });
    const bob = await openConsole(suite.browser, suite.fixture, { token: 'bob-token' });
    const model = await suite.fixture.model();
    const first = model.callTool({ name: 'up__delete_file', arguments: { path: 'a.md' } });
    const aliceCard = alice.page.getByRole('listitem').filter({ hasText: 'Delete a file' });
    await aliceCard.waitFor();
    await bob.page.getByRole('listitem').filter({ hasText: 'Delete a file' }).waitFor();
    await aliceCard.getByRole('button', { name: 'Approve always' }).click();
    expect(textOf(await first)).toBe('deleted a.md');
    for (const { page } of [alice, bob]) {
      await page
        .getByRole('list', { name: 'latest decisions' })
        .getByText('approved always by alice')
        .waitFor();
      await page.getByText('Nothing waits for a decision.').waitFor();
    }
    // The same caller's next call runs without a prompt.
    expect(textOf(await model.callTool({ name: 'up__delete_file', arguments: { path: 'b.md' } }))).toBe(
      'deleted b.md',
    );
    expect(await suite.fixture.gateway.approvals.pending()).toEqual([]);
    await alice.context.close();
    await bob.context.close();
  });

  it('says on a card that asked before an "Approve always" of its tool and caller that the grant does not cover it', async () => {
    const { page, errors, by } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    const first = model.callTool({ name: 'up__delete_file', arguments: { path: 'one.md' } });
    const second = model.callTool({ name: 'up__delete_file', arguments: { path: 'two.md' } });
    const one = page.getByRole('listitem').filter({ hasText: '"one.md"' });
    const two = page.getByRole('listitem').filter({ hasText: '"two.md"' });
    await two.waitFor();
    expect(await two.locator('.notice').count()).toBe(0);
    await one.getByRole('button', { name: 'Approve always' }).click();
    expect(textOf(await first)).toBe('deleted one.md');
    await two
      .getByText(
        `${by} chose “Approve always” for this tool and caller: that covers its next calls, not this one, which asked before. Decide it here.`,
      )
      .waitFor();
    // It still waits: the grant did not decide it.
    expect((await suite.fixture.gateway.approvals.pending()).map((a) => a.arguments)).toEqual([
      { path: 'two.md' },
    ]);
    await two.getByRole('button', { name: 'Deny' }).click();
    expect((await second).isError).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('Try a tool on a tool the policy asks about says it waits, and Approve there shows its result in the form', async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture, { view: 'try/up__delete_file' });
    const form = page.getByRole('form', { name: 'call up__delete_file' });
    await form.getByLabel(/^path/).fill('tried.md');
    await form.getByRole('button', { name: 'Call' }).click();
    const waiting = form.getByRole('status').filter({ hasText: 'Waiting for approval' });
    await waiting.waitFor();
    // The same approval is in the Approvals tab's count (it is the console person's call, like any other).
    await expect.poll(() => page.title()).toBe('(1) Try a tool · toolwire console');
    await waiting.getByRole('button', { name: 'Approve' }).click();
    await form.getByRole('region', { name: 'result' }).getByText('deleted tried.md').waitFor();
    expect(await waiting.count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('reconnects after the gateway restarts (same API token: the session holds) and shows what waits then', async () => {
    const { page } = await openConsole(suite.browser, suite.fixture);
    await suite.fixture.restart();
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'after-restart.md' } });
    const card = page.getByRole('listitem').filter({ hasText: 'Delete a file' });
    await card.getByText('"after-restart.md"').waitFor();
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    expect(textOf(await call)).toBe('deleted after-restart.md');
    await page.context().close();
  });
});
