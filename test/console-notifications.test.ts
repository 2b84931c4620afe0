// The console's browser notifications (issue 18): "Notify me" asks the browser's permission (granted here by
// the browser context), and then an approval that starts waiting while the page is hidden shows a
// notification naming the tool; while the page is in view the card itself is the signal, so none shows. The
// page's Notification is replaced (before the console's script runs) by one that records what it was asked to
// show, with the browser's own permission behind it.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ASK_BEFORE_DELETE, filesUpstream, openConsole, useConsoleGateway } from './_console.js';

const suite = useConsoleGateway(filesUpstream, ASK_BEFORE_DELETE);

interface Shown {
  title: string;
  body: string | undefined;
  tag: string | undefined;
}

/** What instrument() adds to the page's window (typed here, not as a global augmentation). */
interface Instrumented {
  shownNotifications: Shown[];
  pageHidden: boolean;
  Notification: typeof Notification;
}

/** Runs in the page before its scripts: a recording Notification, and a document.hidden the test sets. */
function instrument(): void {
  const page = window as unknown as Instrumented;
  const Real = page.Notification;
  page.shownNotifications = [];
  page.pageHidden = false;
  const Recording = function (title: string, options?: NotificationOptions) {
    page.shownNotifications.push({ title, body: options?.body, tag: options?.tag });
  } as unknown as typeof Notification;
  Object.defineProperty(Recording, 'permission', { get: () => Real.permission });
  Recording.requestPermission = (...args) => Real.requestPermission(...args);
  page.Notification = Recording;
  Object.defineProperty(Document.prototype, 'hidden', { get: () => page.pageHidden });
  Object.defineProperty(Document.prototype, 'visibilityState', {
    get: () => (page.pageHidden ? 'hidden' : 'visible'),
  });
}

const shown = (page: Page) => page.evaluate(() => (window as unknown as Instrumented).shownNotifications);

describe('browser notifications', () => {
  it('after "Notify me", an approval raised while the page is hidden shows a notification naming the tool', async () => {
    const { context, page, errors } = await openConsole(suite.browser, suite.fixture);
    await context.grantPermissions(['notifications'], { origin: suite.fixture.origin });
    await page.addInitScript(instrument);
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    await page.getByRole('button', { name: 'Notify me' }).click();
    await page.getByRole('button', { name: 'Notifications on', pressed: true }).waitFor();
    const model = await suite.fixture.model();

    // In view: the card shows, no notification.
    const first = model.callTool({ name: 'up__delete_file', arguments: { path: 'seen.md' } });
    const card = page.getByRole('listitem').filter({ hasText: 'seen.md' });
    await card.waitFor();
    expect(await shown(page)).toEqual([]);
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await first;

    // Hidden: the next approval shows a notification with the tool's name.
    await page.evaluate(() => ((window as unknown as Instrumented).pageHidden = true));
    const second = model.callTool({ name: 'up__delete_file', arguments: { path: 'away.md' } });
    await expect.poll(() => shown(page)).toHaveLength(1);
    const [notification] = await shown(page);
    expect(notification?.title).toBe('Approval needed');
    expect(notification?.body).toBe('up__delete_file (up)');
    const [pending] = await suite.fixture.gateway.approvals.pending();
    expect(notification?.tag).toBe(pending?.id);
    await page
      .getByRole('listitem')
      .filter({ hasText: 'away.md' })
      .getByRole('button', { name: 'Approve', exact: true })
      .click();
    expect(await second).toMatchObject({ content: [{ text: 'deleted away.md' }] });
    expect(errors).toEqual([]);
    await context.close();
  });
});
