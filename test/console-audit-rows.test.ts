// The console's Audit in a real browser, for two calls that asked for approval, one approved and one denied:
// each call's row and its decision's name the same call and approval (short ids, the whole id in the
// tooltip), and the rows — newest first, as recorded — read in time: a call's row says when it was recorded
// (as it ended, after its decision) and, apart, when it started (before its decision).
import { describe, expect, it } from 'vitest';
import { ASK_BEFORE_DELETE, filesUpstream, openConsole, textOf, useConsoleGateway } from './_console.js';

const suite = useConsoleGateway(filesUpstream, ASK_BEFORE_DELETE);

describe('Audit rows', () => {
  it("ties each call's row to its decision's, and lists them in the order of their times", async () => {
    const { page, errors, context } = await openConsole(suite.browser, suite.fixture, { view: 'audit' });
    const model = await suite.fixture.model();
    const { gateway } = suite.fixture;
    const approved = model.callTool({ name: 'up__delete_file', arguments: { path: 'yes.md' } });
    const denied = model.callTool({ name: 'up__delete_file', arguments: { path: 'no.md' } });
    await expect.poll(async () => (await gateway.approvals.pending()).length).toBe(2);
    const pending = await gateway.approvals.pending();
    const asked = (path: string) => pending.find((a) => a.arguments?.path === path)!;
    const [yes, no] = [asked('yes.md'), asked('no.md')];
    await gateway.approvals.decide(yes.id, { approve: true, decidedBy: 'alice' });
    expect(textOf(await approved)).toBe('deleted yes.md');
    await gateway.approvals.decide(no.id, { approve: false, decidedBy: 'bob', reason: 'keep it' });
    expect(textOf(await denied)).toContain('keep it');

    const table = page.getByRole('region', { name: 'audit records' });
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(4);
    const headers = await table.locator('thead th').allInnerTexts();
    const column = (name: string) => headers.indexOf(name);
    expect(['recorded', 'kind', 'call', 'approval', 'started'].map(column)).not.toContain(-1);
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) => {
        const cells = Array.from(tr.querySelectorAll('td'));
        return cells.map((td) => ({
          text: td.textContent,
          datetime: td.querySelector('time')?.dateTime,
          title: td.querySelector('[title]')?.getAttribute('title') ?? undefined,
        }));
      }),
    );
    const cell = (row: number, name: string) => shown[row]![column(name)]!;
    // Newest first: the denied call's record, its decision, the approved call's, its decision.
    expect(shown.map((_, row) => cell(row, 'kind').text)).toEqual(['call', 'decision', 'call', 'decision']);
    const expected = [no, no, yes, yes];
    expect(shown.map((_, row) => cell(row, 'call').text)).toEqual(expected.map((a) => `#${a.callId}`));
    expect(shown.map((_, row) => cell(row, 'approval').text)).toEqual(expected.map((a) => a.id.slice(0, 8)));
    expect(shown.map((_, row) => cell(row, 'approval').title)).toEqual(expected.map((a) => a.id));
    expect(yes.callId).not.toBe(no.callId);

    // The recorded times never increase down the page; a call started before its decision was taken.
    const recorded = shown.map((_, row) => Date.parse(cell(row, 'recorded').datetime!));
    expect(recorded.every((ms) => Number.isFinite(ms))).toBe(true);
    expect(recorded).toEqual(recorded.toSorted((a, b) => b - a));
    for (const row of [0, 2]) {
      const started = Date.parse(cell(row, 'started').datetime!);
      expect(started).toBeLessThanOrEqual(recorded[row + 1]!);
      expect(cell(row + 1, 'started').text).toBe('');
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
