// The console with its event stream refused and the lists' first reads failing, in a real browser: the page
// says that the pending approvals (and the calls) could not be read, reads them again, backing off, and lists
// them once the gateway answers (it showed an empty list and no error, and never read the calls). The
// gateway's answers are routed by the test (Playwright); counts and states only.
import type { BrowserContext, Route } from 'playwright-core';
import { expect, it } from 'vitest';
import { ASK_BEFORE_DELETE, filesUpstream, useConsoleGateway } from './_console.js';

const suite = useConsoleGateway(filesUpstream, ASK_BEFORE_DELETE);

/** The event stream refused (as with every slot taken); reads of `paths` fail with a 500 while `failing`. */
async function refuseAndFail(context: BrowserContext, paths: string[]) {
  const state = { failing: true, reads: new Map(paths.map((p) => [p, 0])) };
  await context.route('**/api/events', (route) =>
    route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: JSON.stringify({
        error: { code: 'TOO_MANY_STREAMS', message: 'Too many event streams are open' },
      }),
    }),
  );
  for (const path of paths) {
    await context.route(
      (url) => url.pathname === `/api/${path}`,
      (route: Route) => {
        if (route.request().method() !== 'GET') return route.continue();
        state.reads.set(path, (state.reads.get(path) ?? 0) + 1);
        if (!state.failing) return route.continue();
        return route.fulfill({
          status: 500,
          contentType: 'application/json',
          body: JSON.stringify({ error: { code: 'STORE_UNAVAILABLE', message: `${path} store is down` } }),
        });
      },
    );
  }
  return state;
}

it('says the pending approvals and the calls could not be read, reads them again and lists them once it can', async () => {
  const { fixture, browser } = suite;
  // A call logged (someone listens) that waits for approval: the approvals' first page and the calls list it.
  const stop = fixture.gateway.on(() => undefined);
  const model = await fixture.model();
  const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'unread.txt' } });
  await expect.poll(async () => (await fixture.gateway.approvals.pending()).length).toBe(1);

  const context = await browser.newContext();
  const reads = await refuseAndFail(context, ['approvals', 'calls']);
  const page = await context.newPage();
  await page.goto(fixture.handle.consoleUrl()!);
  await page
    .getByRole('alert')
    .getByText('The pending approvals could not be read (approvals store is down)')
    .waitFor();
  expect(await page.getByText('Nothing waited for a decision when last fetched.').count()).toBe(0);
  // One notice, saying one thing: not also that the list below was fetched.
  const alerts = page.getByRole('region', { name: 'Approvals' }).getByRole('alert');
  expect(await alerts.allInnerTexts()).toEqual([
    'Live updates unavailable (Too many event streams are open), and the pending approvals could not be read (approvals store is down); trying again.',
  ]);
  // Read again, and again: the page keeps trying.
  await expect.poll(() => reads.reads.get('approvals')).toBeGreaterThanOrEqual(3);
  await page.goto(`${fixture.origin}/console/#/activity`);
  await page.getByRole('alert').getByText('The calls could not be read (calls store is down)').waitFor();
  expect(await page.getByText('No call yet.').count()).toBe(0);
  await expect.poll(() => reads.reads.get('calls')).toBeGreaterThanOrEqual(3);

  // The gateway answers again: the call is listed, the alert gone; then the approval.
  reads.failing = false;
  await page
    .locator('li.call:is(.state-running, .state-waiting)')
    .filter({ hasText: 'up__delete_file' })
    .waitFor();
  expect(await page.getByText('The calls could not be read').count()).toBe(0);
  await page.goto(`${fixture.origin}/console/#/approvals`);
  await page.locator('li.approval').filter({ hasText: 'unread.txt' }).waitFor();
  expect(await page.getByText('The pending approvals could not be read').count()).toBe(0);
  await page
    .getByRole('alert')
    .getByText('Live updates unavailable (Too many event streams are open')
    .waitFor();

  stop();
  for (const approval of await fixture.gateway.approvals.pending())
    await fixture.gateway.approvals.decide(approval.id, { approve: false, decidedBy: 'test' });
  await call;
  await context.close();
});
