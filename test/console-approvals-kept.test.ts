// The pending approvals the console's page keeps, in a real browser: with exactly as many waiting as it keeps
// (2,000), an approval announced on the stream is counted, not added past the cap ("Showing 2000 of 2001
// pending"); when a listed one is decided it takes the freed place, and the list is whole again.
import { createHash, randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryApprovalStore, type GatewayEvent } from '../src/gateway/index.js';
import { Server } from '../src/server/index.js';
import {
  addDeleteFileTool,
  launchBrowser,
  openConsole,
  startConsoleGateway,
  textOf,
  type ConsoleFixture,
} from './_console.js';

/** The pending approvals the console's page keeps (console/src/approval-pages.ts KEPT_APPROVALS). */
const KEPT_BY_PAGE = 2_000;

let browser: Browser;
let closeBrowser: () => Promise<void>;
let fixture: ConsoleFixture;
const older: string[] = [];

beforeAll(async () => {
  const approvals = new MemoryApprovalStore();
  const asked = Date.now() - 60_000;
  for (let i = 0; i < KEPT_BY_PAGE; i++) {
    const args = { path: `/tmp/old-${i}` };
    const id = randomUUID();
    older.push(id);
    await approvals.create({
      id,
      createdAt: new Date(asked + i).toISOString(),
      expiresAt: new Date(asked + 3_600_000).toISOString(),
      caller: { principal: 'someone' },
      upstream: 'up',
      tool: 'delete_file',
      exposedName: 'up__delete_file',
      arguments: args,
      argumentsDigest: `sha256:${createHash('sha256').update(JSON.stringify(args)).digest('hex')}`,
      reason: 'the policy asks',
    });
  }
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

/** The next approval the gateway asks for. */
function nextPending(): Promise<{ id: string }> {
  return new Promise((resolve) => {
    const stop = fixture.gateway.on((event: GatewayEvent) => {
      if (event.type !== 'approval.pending') return;
      stop();
      resolve(event.approval);
    });
  });
}

describe('the Approvals view at what the page keeps', () => {
  it('counts an approval past the cap, and lists it when a listed one goes', async () => {
    const { page, errors, context } = await openConsole(browser, fixture);
    await page.getByRole('link', { name: `Approvals, ${KEPT_BY_PAGE} pending`, exact: true }).click();
    await expect.poll(() => page.title()).toBe(`(${KEPT_BY_PAGE}) Approvals · toolwire console`);
    expect(await page.getByText(/Showing \d+ of \d+ pending/).count()).toBe(0);

    const pending = nextPending();
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
