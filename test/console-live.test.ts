// The console's hold on the gateway in a real browser: a dead link (no error, just silence) is noticed
// after two and a half keep-alive intervals without an event, and the page reconnects and draws what came
// meanwhile, while a link that carries the gateway's `ping` events never reconnects (the page's clock is
// Playwright's, run forward); a session ended in another tab sends the page back to the sign-in form on its
// next request; with every event-stream slot taken, the pending approvals are fetched all the same and the
// page says live updates are unavailable and why; "Approve always" sends the duration picked and says it;
// an approval the gateway says is settled (409) leaves the page.
import {
  createServer,
  request as httpRequest,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ASK_BEFORE_DELETE,
  filesUpstream,
  API_TOKEN,
  openConsole,
  textOf,
  useConsoleGateway,
} from './_console.js';

const suite = useConsoleGateway(filesUpstream, ASK_BEFORE_DELETE);

/** Denies whatever waits, on the gateway (a test's leftovers). */
async function denyAll(): Promise<void> {
  for (const approval of await suite.fixture.gateway.approvals.pending())
    await suite.fixture.gateway.approvals
      .decide(approval.id, { approve: false, decidedBy: 'test' })
      .catch(() => undefined);
}

/**
 * A link between the page and the gateway that the test controls: it counts the event streams opened,
 * adds a `ping` event to each open one (as a gateway that sends them does), and goes dead — it then
 * answers nothing and passes nothing on, with no error, like a laptop that slept or a NAT that forgot.
 */
async function link(target: string) {
  const state = { dead: false, streams: 0 };
  const open = new Set<ServerResponse>();
  const server: HttpServer = createServer((req, res) => {
    if (state.dead) return; // no answer, no error
    const events = req.url?.startsWith('/api/events') === true;
    if (events) state.streams++;
    const upstream = httpRequest(
      `${target}${req.url}`,
      { method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        if (!events) return void up.pipe(res);
        open.add(res);
        up.on('data', (chunk: Buffer) => {
          if (!state.dead) res.write(chunk);
        });
        up.on('end', () => res.end());
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => {
      open.delete(res);
      upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ping: () => {
      for (const res of open) res.write('event: ping\ndata: {}\n\n');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const badge = (page: Page) => page.getByRole('status').filter({ hasText: /live|reconnecting|connecting/ });

// Each test starts with nothing pending (one that failed may have left an approval).
beforeEach(denyAll);

describe('the live connection', () => {
  it('a dead link is noticed after 2.5 ping intervals of silence and the page reconnects; pings keep a live link', async () => {
    const proxy = await link(suite.fixture.origin);
    const context = await suite.browser.newContext();
    // Counts the pings the page's event stream hears (its listener runs before the console's own).
    await context.addInitScript(() => {
      const Original = EventSource;
      (window as unknown as { __pings: number }).__pings = 0;
      window.EventSource = class extends Original {
        constructor(url: string | URL, init?: EventSourceInit) {
          super(url, init);
          this.addEventListener('ping', () => (window as unknown as { __pings: number }).__pings++);
        }
      };
    });
    const page = await context.newPage();
    await page.clock.install();
    await page.goto(suite.fixture.handle.consoleUrl()!.replace(suite.fixture.origin, proxy.origin));
    await badge(page).filter({ hasText: 'live' }).waitFor();
    expect(proxy.state.streams).toBe(1);

    // Pings keep it: 60 s in all, never 37.5 s without an event.
    await page.clock.runFor(30_000);
    proxy.ping();
    await expect.poll(() => page.evaluate(() => (window as unknown as { __pings: number }).__pings)).toBe(1);
    await page.clock.runFor(30_000);
    expect(await badge(page).innerText()).toBe('live');
    expect(proxy.state.streams).toBe(1);

    // The link dies silently; an approval comes meanwhile.
    proxy.state.dead = true;
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'while-dead.txt' } });
    await expect.poll(async () => (await suite.fixture.gateway.approvals.pending()).length).toBe(1);
    await page.clock.runFor(40_000);
    await badge(page).filter({ hasText: 'reconnecting…' }).waitFor();

    // The link is back: the next try reconnects, and the approval is drawn.
    proxy.state.dead = false;
    await page.clock.runFor(40_000);
    const card = page.locator('li.approval').filter({ hasText: 'while-dead.txt' });
    await card.waitFor();
    await badge(page).filter({ hasText: 'live' }).waitFor();
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    expect(textOf(await call)).toBe('deleted while-dead.txt');
    await context.close();
    await proxy.close();
  });

  it('a session ended in another tab sends this one back to the sign-in form on its next request', async () => {
    const { context, page } = await openConsole(suite.browser, suite.fixture);
    const other = await context.newPage();
    await other.goto(`${suite.fixture.origin}/console/#/approvals`);
    await badge(other).filter({ hasText: 'live' }).waitFor();
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'signed-out.txt' } });
    const card = page.locator('li.approval');
    await card.waitFor();
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByLabel('Token').waitFor();
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByLabel('Token').waitFor();
    await page.getByText('Your session ended; sign in again.').waitFor();
    await denyAll();
    await call;
    await context.close();
  });

  it('with every event-stream slot taken, the pending approvals show with "live updates unavailable" and why', async () => {
    // One caller holds at most 4 streams: four signed-in sessions of four streams each take all 16 slots.
    const held = new AbortController();
    const cookies = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const response = await fetch(`${suite.fixture.handle.apiUrl}/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-toolwire-console': '1' },
          body: JSON.stringify({ token: API_TOKEN }),
        });
        expect(response.status).toBe(200);
        return response.headers.get('set-cookie')!.split(';')[0]!;
      }),
    );
    const streams = await Promise.all(
      cookies.flatMap((cookie) =>
        Array.from({ length: 4 }, () =>
          fetch(`${suite.fixture.handle.apiUrl}/events`, { headers: { cookie }, signal: held.signal }),
        ),
      ),
    );
    expect(streams.map((s) => s.status)).toEqual(Array(16).fill(200));
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'no-slot.txt' } });
    await expect.poll(async () => (await suite.fixture.gateway.approvals.pending()).length).toBe(1);
    const context = await suite.browser.newContext();
    const page = await context.newPage();
    await page.goto(suite.fixture.handle.consoleUrl()!);
    await page
      .getByRole('alert')
      .getByText('Live updates unavailable (Too many event streams are open')
      .waitFor();
    await page.locator('li.approval').filter({ hasText: 'no-slot.txt' }).waitFor();
    expect(await page.getByText('Nothing waits for a decision.').count()).toBe(0);
    held.abort();
    await denyAll();
    await call;
    await context.close();
  });

  it('"Approve always" sends the duration picked and says how long it lasts; a settled approval (409) leaves the page', async () => {
    const { context, page } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__delete_file', arguments: { path: 'always.txt' } });
    const card = page.locator('li.approval');
    await card.waitFor();
    await card.getByLabel('Approve always for').selectOption({ label: 'for 8 hours' });
    await card.getByText(/^this tool, session [0-9a-f]{8} only: for 8 hours$/).waitFor();
    const sent = page.waitForRequest((r) => r.url().endsWith('/approve'));
    await card.getByRole('button', { name: 'Approve always', exact: true }).click();
    expect((await sent).postDataJSON()).toMatchObject({ always: true, alwaysForMs: 8 * 3_600_000 });
    expect(textOf(await call)).toBe('deleted always.txt');
    // The grant holds: the same caller's next call goes through without asking.
    expect(textOf(await model.callTool({ name: 'up__delete_file', arguments: { path: 'again.txt' } }))).toBe(
      'deleted again.txt',
    );

    // Another caller (asked again). The gateway answers that the approval is settled: the card goes.
    const other = await suite.fixture.model();
    const second = other.callTool({ name: 'up__delete_file', arguments: { path: 'settled.txt' } });
    const settled = page.locator('li.approval').filter({ hasText: 'settled.txt' });
    await settled.waitFor();
    await page.route('**/approve', (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({
          error: { code: 'APPROVAL_SETTLED', message: 'Approval is settled already (expired)' },
        }),
      }),
    );
    await settled.getByRole('button', { name: 'Approve', exact: true }).click();
    await settled.waitFor({ state: 'detached' });
    await denyAll();
    await second;
    await context.close();
  });
});
