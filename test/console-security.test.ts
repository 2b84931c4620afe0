// The console against the attacks the MCP Inspector's CVEs are about: untrusted text from an upstream (a
// tool's description, a result) that carries HTML or script renders as text and runs nothing; the API
// refuses requests without credentials (401), from another origin (403) and cookie-authenticated changes
// without the console's same-origin header (CSRF, 403); a watcher cannot decide; the page is served with
// a strict CSP; the one-time login token leaves the address bar and cannot be used twice (a second
// browser opening it is told so on the sign-in form).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Server, structured, text } from '../src/server/index.js';
import { API_TOKEN, openConsole, useConsoleGateway } from './_console.js';

const IMG = '<img src=x onerror="window.__pwned=1">';
const SCRIPT = '<script>window.__pwned=2</script>';

const suite = useConsoleGateway(() => {
  const upstream = new Server({ name: 'evil', version: '1.0.0' });
  upstream.tool(
    'evil',
    {
      title: `Evil ${IMG}`,
      description: `Looks harmless. ${IMG} ${SCRIPT}`,
      inputSchema: { type: 'object', properties: { note: { type: 'string', description: SCRIPT } } },
    },
    () => structured({ html: `${IMG}${SCRIPT}` }, text(`result ${IMG} ${SCRIPT}`)),
  );
  return upstream;
}, [{ tool: 'evil', action: 'ask' }]);

describe('the console and untrusted content', () => {
  it('renders HTML and script from a tool description and a result as text, and runs none of it', async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture, { view: 'tools' });
    const card = page.getByRole('listitem').filter({ hasText: 'Looks harmless.' });
    await card.waitFor();
    expect(await card.innerText()).toContain(`${IMG} ${SCRIPT}`);
    // An approval shows the description too; then the result in Activity.
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__evil', arguments: { note: IMG } });
    await page.goto(`${suite.fixture.origin}/console/#/approvals`);
    const approval = page.getByRole('listitem').filter({ hasText: 'Looks harmless.' });
    await approval.waitFor();
    expect(await approval.innerText()).toContain(IMG);
    await approval.getByRole('button', { name: 'Approve', exact: true }).click();
    await call;
    await page.goto(`${suite.fixture.origin}/console/#/activity`);
    await page
      .getByRole('button', { name: /up__evil/ })
      .first()
      .click();
    const result = page.getByTestId('result');
    await result.waitFor();
    expect(await result.innerText()).toContain(`result ${IMG} ${SCRIPT}`);
    await page.goto(`${suite.fixture.origin}/console/#/try/up__evil`);
    await page.getByText(`Looks harmless. ${IMG}`).waitFor();
    // Nothing ran, and no element came from the text.
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.locator('img[src="x"], main script').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('serves the page with a strict Content-Security-Policy', async () => {
    const response = await fetch(`${suite.fixture.origin}/console/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toContain("require-trusted-types-for 'script'");
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\ssrc=)[^>]*>/);
  });
});

describe('the API behind the console', () => {
  const api = (path: string, init: RequestInit = {}) => fetch(`${suite.fixture.origin}/api${path}`, init);

  it('answers 401 without the cookie or a token, and 403 to a foreign Origin', async () => {
    expect((await api('/approvals')).status).toBe(401);
    expect((await api('/tools')).status).toBe(401);
    const foreign = await api('/approvals', {
      headers: { origin: 'https://evil.example', authorization: `Bearer ${API_TOKEN}` },
    });
    expect(foreign.status).toBe(403);
    expect((await api('/approvals', { headers: { authorization: `Bearer ${API_TOKEN}` } })).status).toBe(200);
  });

  it('trades a one-time login token once, and refuses cookie changes without the same-origin header (CSRF)', async () => {
    const token = new URL(suite.fixture.handle.consoleUrl()!).hash.slice('#token='.length);
    const signIn = () =>
      api('/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-toolwire-console': '1' },
        body: JSON.stringify({ token }),
      });
    const first = await signIn();
    expect(first.status).toBe(200);
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect((await signIn()).status).toBe(401);
    const session = cookie.split(';')[0]!;
    expect((await api('/tools', { headers: { cookie: session } })).status).toBe(200);
    const change = (headers: Record<string, string>) =>
      api('/tools/up__evil/hidden', {
        method: 'POST',
        headers: { cookie: session, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ hidden: false }),
      });
    expect((await change({})).status).toBe(403);
    expect((await change({ 'x-toolwire-console': '1', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await change({ 'x-toolwire-console': '1', origin: 'http://localhost:1' })).status).toBe(403);
    expect((await change({ 'x-toolwire-console': '1', origin: suite.fixture.origin })).status).toBe(200);
  });

  it('lets a watcher read but not decide', async () => {
    const { page } = await openConsole(suite.browser, suite.fixture, { token: 'wendy-token' });
    await page.getByText('wendy (watching)').waitFor();
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__evil', arguments: {} });
    const card = page.getByRole('listitem').filter({ hasText: 'Looks harmless.' });
    await card.waitFor();
    expect(await card.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
    const id = (await suite.fixture.gateway.approvals.pending())[0]!.id;
    const refused = await page.evaluate(async (approval) => {
      const response = await fetch(`/api/approvals/${approval}/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-toolwire-console': '1' },
        body: '{}',
      });
      return response.status;
    }, id);
    expect(refused).toBe(403);
    await suite.fixture.gateway.approvals.decide(id, { approve: false, decidedBy: 'test' });
    expect((await call).isError).toBe(true);
    await page.context().close();
  });

  it('names a decision taken in a session a one-time link started by the link (console-link:ID), in the Audit view and the API', async () => {
    const link = suite.fixture.handle.consoleUrl()!;
    // The link's id: the first 8 hex digits of its token's SHA-256 (what the gateway prints beside it).
    const token = new URL(link).hash.slice('#token='.length);
    const by = `console-link:${createHash('sha256').update(token).digest('hex').slice(0, 8)}`;
    const context = await suite.browser.newContext();
    const page = await context.newPage();
    await page.goto(link);
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    await page.getByText(by, { exact: true }).waitFor();
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__evil', arguments: { note: 'by link' } });
    const card = page.getByRole('listitem').filter({ hasText: 'Looks harmless.' });
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    expect((await call).isError).toBeFalsy();
    const listed = await api('/audit', { headers: { authorization: `Bearer ${API_TOKEN}` } });
    const { records } = (await listed.json()) as {
      records: { kind: string; decision?: string; decidedBy?: string }[];
    };
    const decided = records.filter((r) => r.kind === 'decision' && r.decision === 'approved');
    expect(decided.at(-1)?.decidedBy).toBe(by);
    await page.goto(`${suite.fixture.origin}/console/#/audit`);
    const rows = page.getByRole('region', { name: 'audit records' }).getByRole('row');
    await rows.filter({ hasText: 'approved' }).filter({ hasText: by }).first().waitFor();
    await context.close();
  });

  it("shows the sign-in form without a failing request or a console error, and signs in from it to the view's heading", async () => {
    const context = await suite.browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
    });
    await page.goto(`${suite.fixture.origin}/console/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByLabel('Token').fill(API_TOKEN);
    await page.getByLabel(/Your name/).fill('Ada');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    await page.getByText('console:Ada (api-token)', { exact: true }).waitFor();
    // The form went with the focus: the focus is on the view's heading, not lost to the page.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Approvals');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('answers "who is signed in?" without credentials with nobody, and a wrong token with 401', async () => {
    const nobody = await api('/session');
    expect(nobody.status).toBe(200);
    expect(await nobody.json()).toEqual({ signedIn: false });
    expect((await api('/session', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const port = new URL(suite.fixture.origin).port;
    const forged = await api('/session', { headers: { cookie: `toolwire_console_${port}=forged.cookie` } });
    expect(forged.status).toBe(401);
    const bearer = await api('/session', { headers: { authorization: `Bearer ${API_TOKEN}` } });
    expect(await bearer.json()).toEqual({ signedIn: true, by: 'api-token', canDecide: true, via: 'bearer' });
  });

  it('takes the login token out of the address bar', async () => {
    const { page } = await openConsole(suite.browser, suite.fixture);
    expect(page.url()).toBe(`${suite.fixture.origin}/console/#/approvals`);
    await page.context().close();
  });

  it('says on the sign-in form that a link opened a second time was used already, and what to do', async () => {
    const link = suite.fixture.handle.consoleUrl()!;
    const first = await suite.browser.newContext();
    const page = await first.newPage();
    await page.goto(link);
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    // Another browser (a fresh context: no cookie) opens the same link.
    const second = await suite.browser.newContext();
    const other = await second.newPage();
    await other.goto(link);
    // The form and the reason come in one drawing.
    await other.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await other.getByRole('alert').allInnerTexts()).toEqual([
      'This sign-in link was used already or has expired: each link signs one browser in, once, within 24 hours. Sign in with the API token the gateway printed (TOOLWIRE_TOKEN).',
    ]);
    expect(other.url()).toBe(`${suite.fixture.origin}/console/#/approvals`);
    // The same link opened again (a new page load) where it signed in: no complaint, the console.
    await page.goto('about:blank');
    await page.goto(link);
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await first.close();
    await second.close();
  });
});
