// Signing in to an OAuth-protected upstream from the console (issue 21), in a real Chromium: the gateway's
// upstream is toolwire's resource server (test/_protected-server.ts) behind the test authorization server,
// and nobody has signed in, so the Upstreams view says it needs sign-in and offers "Sign in". The click
// goes to the authorization server (which approves at once), back to the console's /console/callback, whose
// page hands the address to the gateway; the gateway checks the state and redeems the code with the flow's
// PKCE verifier, the upstream connects and its tools appear — and the code leaves the address bar.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, serveGateway, type Gateway, type GatewayHttpHandle } from '../src/gateway/index.js';
import { startAuthorizationServer, type TestAuthorizationServer } from './_authorization-server.js';
import { launchBrowser, openConsole } from './_console.js';
import { startProtectedServer, type ProtectedServer } from './_protected-server.js';

let browser: Browser;
let closeBrowser: () => Promise<void>;
let as: TestAuthorizationServer;
let rs: ProtectedServer;
let gateway: Gateway;
let handle: GatewayHttpHandle;

beforeAll(async () => {
  ({ browser, close: closeBrowser } = await launchBrowser());
  as = await startAuthorizationServer();
  rs = await startProtectedServer(as);
  gateway = createGateway(
    { upstreams: { notes: { url: rs.url, oauth: {} } }, policy: { default: 'allow' } },
    { onLog: () => undefined },
  );
  await gateway.start();
  handle = await serveGateway(gateway, { port: 0 });
});

afterAll(async () => {
  await handle?.close();
  await gateway?.close();
  await rs?.close();
  await as?.close();
  await closeBrowser?.();
});

describe('console: signing in to an upstream', () => {
  it('"Sign in" runs the redirect flow through the gateway callback, and the upstream connects', async () => {
    const origin = new URL(handle.apiUrl).origin;
    const { context, page, errors } = await openConsole(browser, { origin, handle }, { view: 'upstreams' });
    const card = page.locator('[data-upstream="notes"]');
    await card.getByText('needs sign-in', { exact: true }).waitFor();
    expect(gateway.tools().filter((tool) => tool.listed)).toEqual([]);

    await card.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Signed in to notes: connected' }).waitFor();
    await card.getByText('connected', { exact: true }).waitFor();

    // The browser went to the authorization server with PKCE, and came back to the console's callback.
    const [authorization] = as.to('/authorize');
    expect(authorization?.query).toMatchObject({
      code_challenge_method: 'S256',
      redirect_uri: `${origin}/console/callback`,
      resource: rs.url,
    });
    expect(as.to('/token')[0]?.body).toMatchObject({ grant_type: 'authorization_code' });
    // The code and state left the address bar; the tools are the gateway's now.
    expect(page.url()).toBe(`${origin}/console/#/upstreams`);
    expect(gateway.upstreams()[0]?.status).toBe('ready');
    expect(gateway.tools().map((tool) => tool.name)).toContain('notes__echo');
    expect(errors).toEqual([]);
    await context.close();
  });
});
