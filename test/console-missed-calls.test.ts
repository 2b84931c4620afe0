// The console's Activity where the call log has a hole, in a real browser: a gateway with no grace
// (`callLogGraceMs: 0`) logs a call while a listener is there, none of the two calls made once it left, and
// the next call once a console watches again. The console, listing #4 and #1, says between them that 2 calls
// are not in the call log and points to the Audit; a filtered list says nothing of it.
import { describe, expect, it } from 'vitest';
import { Server, text } from '../src/server/index.js';
import { openConsole, useConsoleGateway } from './_console.js';

const suite = useConsoleGateway(
  () => {
    const upstream = new Server({ name: 'works', version: '2.0.0' });
    upstream.tool('ping', { inputSchema: { type: 'object', properties: {} } }, () => text('pong'));
    return upstream;
  },
  [],
  { callLogGraceMs: 0 },
);

describe('the Activity view where calls were not logged', () => {
  it('says how many calls are missing between two listed, and points to the Audit', async () => {
    const model = await suite.fixture.model();
    const ping = async () => {
      const result = await model.callTool({ name: 'up__ping', arguments: {} });
      expect(result.isError).toBeFalsy();
    };
    // A listener in this process: the call log records #1; gone (no grace), #2 and #3 are not recorded.
    const stop = suite.fixture.gateway.on(() => undefined);
    await ping();
    stop();
    await ping();
    await ping();

    const { page, errors } = await openConsole(suite.browser, suite.fixture, { view: 'activity' });
    await ping(); // #4, watched by the console
    const list = page.getByRole('list', { name: 'calls' });
    await list.getByRole('button', { name: /#4 up__ping/ }).waitFor();
    await list.getByRole('button', { name: /#1 up__ping/ }).waitFor();
    const note = list.getByRole('note');
    expect(await note.innerText()).toBe(
      '2 calls not in the call log (made while no console was watching) — see Audit',
    );
    // Between #4 and #1, in that order.
    const items = await list.locator(':scope > li').allInnerTexts();
    const at = items.findIndex((item) => item.startsWith('2 calls not in the call log'));
    expect(items[at - 1]).toContain('#4 up__ping');
    expect(items[at + 1]).toContain('#1 up__ping');

    // A filtered list skips calls anyway: no note.
    await page.getByLabel('State').selectOption('ok');
    await list.getByRole('button', { name: /#1 up__ping/ }).waitFor();
    expect(await note.count()).toBe(0);
    await page.getByLabel('State').selectOption('all');
    await note.waitFor();

    // The link leads to the Audit, where the calls #2 and #3 are.
    await note.getByRole('link', { name: 'Audit' }).click();
    expect(new URL(page.url()).hash).toBe('#/audit');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
