// Who decided, as the console and the API name them: a console session the API token signed in reads as the
// token's (`console:api-token`, not a bare "console"); a name typed at sign-in is that person's own claim,
// put first with what signed in beside it (`console:NAME (api-token)`, `console:NAME (link ID)`) and marked
// "declared name" in the Audit view; a principal the verifier names needs no name. And a call that an
// "Approve always" grant let through names that grant — who gave it, when, on which approval — in its audit
// record, its Activity row and the Audit view, not only "ok".
import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  API_TOKEN,
  ASK_BEFORE_DELETE,
  filesUpstream,
  openConsole,
  textOf,
  useConsoleGateway,
} from './_console.js';

const suite = useConsoleGateway(filesUpstream, ASK_BEFORE_DELETE);

const api = (path: string, init: RequestInit = {}) => fetch(`${suite.fixture.origin}/api${path}`, init);

interface AuditRecord {
  kind: 'call' | 'decision';
  time: string;
  decision: string;
  decidedBy: string;
  approvalId?: string;
  callId?: number;
  outcome?: string;
  grant?: { approvalId?: string; decidedBy?: string; decidedAt?: string; until?: string };
}

async function auditRecords(): Promise<AuditRecord[]> {
  const listed = await api('/audit', { headers: { authorization: `Bearer ${API_TOKEN}` } });
  return ((await listed.json()) as { records: AuditRecord[] }).records;
}

/** `POST /api/session`: the answer's status and who the session is. */
async function signIn(body: { token: string; name?: string }): Promise<{ status: number; by?: string }> {
  const response = await api('/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-toolwire-console': '1' },
    body: JSON.stringify(body),
  });
  return { status: response.status, ...((await response.json()) as { by?: string }) };
}

/** The console's sign-in form, filled in and sent; resolves once the page is live. */
async function signInWithForm(page: Page, token: string, name?: string): Promise<void> {
  await page.goto(`${suite.fixture.origin}/console/`);
  await page.getByLabel('Token').fill(token);
  if (name !== undefined) await page.getByLabel(/Your name/).fill(name);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
}

describe('who signed in, as the decisions name them', () => {
  it('names a session of the API token console:api-token, and puts a typed name first with what signed in', async () => {
    expect(await signIn({ token: API_TOKEN })).toEqual({
      status: 200,
      by: 'console:api-token',
      canDecide: true,
    });
    expect(await signIn({ token: API_TOKEN, name: 'Ada' })).toMatchObject({ by: 'console:Ada (api-token)' });
    const token = new URL(suite.fixture.handle.consoleUrl()!).hash.slice('#token='.length);
    const link = createHash('sha256').update(token).digest('hex').slice(0, 8);
    expect(await signIn({ token, name: 'Ada' })).toMatchObject({ by: `console:Ada (link ${link})` });
    // A principal the verifier names is who signed in: a name typed with its token changes nothing.
    expect(await signIn({ token: 'alice-token', name: 'Mallory' })).toMatchObject({ by: 'alice' });
  });

  it('records a decision of an API-token session as console:api-token, and a typed name as declared', async () => {
    for (const [name, by] of [
      [undefined, 'console:api-token'],
      ['Ada', 'console:Ada (api-token)'],
    ] as const) {
      const context = await suite.browser.newContext();
      const page = await context.newPage();
      await signInWithForm(page, API_TOKEN, name);
      await page.getByText(by, { exact: true }).waitFor();
      const model = await suite.fixture.model();
      const file = `${name ?? 'nobody'}.txt`;
      const call = model.callTool({ name: 'up__delete_file', arguments: { path: file } });
      const card = page.locator('li.approval').filter({ hasText: file });
      await card.getByRole('button', { name: 'Approve', exact: true }).click();
      expect(textOf(await call)).toBe(`deleted ${file}`);
      const decided = (await auditRecords()).filter((r) => r.kind === 'decision');
      expect(decided.at(-1)?.decidedBy).toBe(by);
      // The Audit view: the decider as recorded; a typed name marked as the person's own claim.
      await page.goto(`${suite.fixture.origin}/console/#/audit`);
      const row = page
        .getByRole('region', { name: 'audit records' })
        .getByRole('row')
        .filter({ hasText: by })
        .first();
      await row.waitFor();
      expect(await row.getByText('declared name', { exact: true }).count()).toBe(name === undefined ? 0 : 1);
      await context.close();
    }
  });
});

describe('a call that an "Approve always" grant let through', () => {
  it('names the grant, who gave it, when and on which approval, in its record, its Activity row and the Audit', async () => {
    const { page, context, by, errors } = await openConsole(suite.browser, suite.fixture);
    const model = await suite.fixture.model();
    const first = model.callTool({ name: 'up__delete_file', arguments: { path: 'always.txt' } });
    const card = page.locator('li.approval').filter({ hasText: 'always.txt' });
    await card.getByRole('button', { name: 'Approve always' }).click();
    expect(textOf(await first)).toBe('deleted always.txt');
    // The same caller again: the grant lets it through without asking.
    expect(textOf(await model.callTool({ name: 'up__delete_file', arguments: { path: 'again.txt' } }))).toBe(
      'deleted again.txt',
    );
    const records = await auditRecords();
    const decision = records.findLast((r) => r.kind === 'decision' && r.decision === 'approved-always')!;
    const call = records.findLast((r) => r.kind === 'call' && r.decision === 'remembered')!;
    expect(call).toMatchObject({
      outcome: 'ok',
      decidedBy: by,
      grant: { approvalId: decision.approvalId, decidedBy: by, decidedAt: decision.time },
    });
    const says = new RegExp(
      `allowed by an “Approve always” grant from ${by} given .+ \\(approval ${decision.approvalId!.slice(0, 8)}\\)`,
    );
    await page.goto(`${suite.fixture.origin}/console/#/activity`);
    const row = page.locator(`li[data-call="${call.callId}"]`);
    await expect.poll(() => row.innerText()).toMatch(says);
    await page.goto(`${suite.fixture.origin}/console/#/audit`);
    const audited = page
      .getByRole('region', { name: 'audit records' })
      .getByRole('row')
      .filter({ hasText: `#${call.callId}` });
    await expect.poll(() => audited.innerText()).toMatch(says);
    expect(errors).toEqual([]);
    await context.close();
  });
});
