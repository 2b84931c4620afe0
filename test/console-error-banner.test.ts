// The banner of an isError result in a real browser is an alert (said at once by a screen reader) only when
// the error just happened: the result of a call the person watched fail in Activity, or made in Try a tool.
// Opening a call that failed before is reading the page: its banner is text, not an alert.
import { describe, expect, it } from 'vitest';
import { Server, toolError } from '../src/server/index.js';
import { gate, openConsole, useConsoleGateway } from './_console.js';

const later = gate();

const suite = useConsoleGateway(() => {
  const upstream = new Server({ name: 'breaks', version: '1.0.0' });
  const noArguments = { inputSchema: { type: 'object' as const, properties: {} } };
  upstream.tool('fails', noArguments, () => toolError('it broke'));
  upstream.tool('fails_later', noArguments, async () => {
    await later.promise;
    return toolError('it broke while watched');
  });
  return upstream;
}, []);

const BANNER = 'The tool reported an error (isError)';

describe('the error banner', () => {
  it('is no alert in the detail of a call that failed before it was opened', async () => {
    const { page, errors, context } = await openConsole(suite.browser, suite.fixture, { view: 'activity' });
    const model = await suite.fixture.model();
    expect((await model.callTool({ name: 'up__fails', arguments: {} })).isError).toBe(true);
    const row = page
      .getByRole('list', { name: 'calls' })
      .getByRole('listitem')
      .filter({ hasText: 'up__fails' });
    await row.locator('.badge.state', { hasText: 'failed' }).waitFor();
    await row.getByRole('button', { name: /up__fails/ }).click();
    await row.getByText('it broke').waitFor();
    expect(await row.locator('.error-banner').innerText()).toBe(BANNER);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is an alert when the call fails while its detail is open', async () => {
    const { page, errors, context } = await openConsole(suite.browser, suite.fixture, { view: 'activity' });
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__fails_later', arguments: {} });
    const row = page
      .getByRole('list', { name: 'calls' })
      .getByRole('listitem')
      .filter({ hasText: 'up__fails_later' });
    await row.getByRole('status', { name: 'running' }).waitFor();
    await row.getByRole('button', { name: /up__fails_later/ }).click();
    await row.getByText('No result yet.').waitFor();
    later.open();
    expect((await call).isError).toBe(true);
    await row.getByRole('alert').filter({ hasText: BANNER }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is an alert for the result of a call made in Try a tool', async () => {
    const { page, errors, context } = await openConsole(suite.browser, suite.fixture, {
      view: 'try/up__fails',
    });
    await page.getByRole('button', { name: 'Call' }).click();
    const result = page.getByRole('region', { name: 'result' });
    await result.getByText('it broke').waitFor();
    expect(await result.getByRole('alert').innerText()).toBe(BANNER);
    expect(errors).toEqual([]);
    await context.close();
  });
});
