// The console's Activity, Tools and Upstreams views in a real browser: a long call's progress bar moves
// as the upstream reports progress and Cancel stops it (the upstream's signal aborts, the model gets an
// isError result naming who cancelled); a result's text, image, audio, resource link (read through the
// gateway), embedded resource and structuredContent (checked against the outputSchema) render, an isError
// result is marked; filter, search and the JSON-lines export; the policy set for a tool applies to the
// model's next call, and a hidden tool leaves the model's tools/list with list_changed; the upstream's
// status, revision and counts; the audit records.
import { readFileSync } from 'node:fs';

import { afterAll, describe, expect, it } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  Server,
  audio,
  embeddedResource,
  image,
  resourceLink,
  structured,
  text,
  toolError,
} from '../src/server/index.js';
import { gate, openConsole, screenshot, useConsoleGateway } from './_console.js';

// A 1×1 PNG and a WAV header with no samples: real files of allowed types.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

/** The long task's steps: each waits for the test to open the next gate. */
let steps: { open: () => void; promise: Promise<void> }[] = [];
const aborted = gate<string>();

const suite = useConsoleGateway(() => {
  const upstream = new Server({ name: 'works', version: '2.0.0' }, { instructions: 'Tools for the tests.' });
  upstream.tool(
    'long_task',
    { description: 'Takes four steps.', inputSchema: { type: 'object', properties: {} } },
    async (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.open(String(ctx.signal.reason)), { once: true });
      for (let step = 1; step <= 4; step++) {
        await ctx.progress(step, 4, `step ${step}`);
        const next = steps[step - 1]!.promise;
        await Promise.race([next, new Promise((_, reject) => ctx.signal.addEventListener('abort', reject))]);
      }
      return text('done');
    },
  );
  upstream.resource(
    'mem://report.txt',
    { name: 'report', mimeType: 'text/plain' },
    () => 'the report, read through the gateway',
  );
  upstream.tool(
    'media',
    {
      description: 'Returns every kind of content.',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      annotations: { readOnlyHint: true },
    },
    () =>
      structured(
        { count: 3 },
        text('plain text result'),
        image(PNG, 'image/png'),
        audio(WAV, 'audio/wav'),
        resourceLink({ uri: 'mem://report.txt', name: 'report', mimeType: 'text/plain' }),
        embeddedResource({ uri: 'mem://inline.txt', mimeType: 'text/plain', text: 'embedded text' }),
      ),
  );
  upstream.tool('fails', { inputSchema: { type: 'object', properties: {} } }, () => toolError('it broke'));
  upstream.tool(
    'write_note',
    {
      title: 'Write a note',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      annotations: { destructiveHint: true },
    },
    (args) => text(`wrote ${String((args as { text?: string }).text)}`),
  );
  return upstream;
}, [{ tool: 'write_note', action: 'ask' }]);

afterAll(async () => {
  for (const step of steps) step.open();
});

describe('the Activity view', () => {
  it('moves the progress bar as the upstream reports progress, and Cancel stops the call', async () => {
    steps = [gate(), gate(), gate(), gate()];
    const { page, errors, by } = await openConsole(suite.browser, suite.fixture, { view: 'activity' });
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__long_task', arguments: {} });
    const row = page.getByRole('listitem').filter({ hasText: 'up__long_task' });
    const bar = row.getByRole('progressbar');
    await expect.poll(() => bar.getAttribute('value')).toBe('1');
    expect(await bar.getAttribute('max')).toBe('4');
    expect(await row.getByRole('status', { name: 'running' }).count()).toBe(1);
    steps[0]!.open();
    await expect.poll(() => bar.getAttribute('value')).toBe('2');
    await row.getByText('step 2').waitFor();
    await screenshot(page, 'activity-light');
    await row.getByRole('button', { name: 'Cancel' }).click();
    expect(await aborted.promise).toBeTruthy();
    const result = await call;
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toBe(
      `The call of up__long_task was cancelled by ${by}.`,
    );
    await row.getByText('cancelled', { exact: true }).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("renders a result's text, image, audio, resource link, embedded resource and structuredContent, and marks isError", async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture, {
      view: 'activity',
      colorScheme: 'dark',
    });
    const model = await suite.fixture.model();
    await model.callTool({ name: 'up__media', arguments: {} });
    await model.callTool({ name: 'up__fails', arguments: {} });
    await page.getByRole('button', { name: /up__media/ }).click();
    const result = page.getByTestId('result');
    await result.getByText('plain text result').waitFor();
    expect(await result.locator('img').getAttribute('src')).toBe(`data:image/png;base64,${PNG}`);
    expect(await result.locator('audio').getAttribute('src')).toBe(`data:audio/wav;base64,${WAV}`);
    await result.getByText('embedded text').waitFor();
    await result.getByText('matches outputSchema').waitFor();
    expect(await result.getByRole('group', { name: 'structuredContent' }).innerText()).toContain('count: 3');
    await result.getByRole('button', { name: 'Read resource' }).click();
    await result.getByText('the report, read through the gateway').waitFor();
    await screenshot(page, 'activity-dark');
    await page.getByRole('button', { name: /up__fails/ }).click();
    const failed = page.locator('.result.is-error');
    await failed.locator('.error-banner').waitFor();
    expect(await failed.innerText()).toContain('it broke');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('filters by state, searches, and exports the calls shown as JSON lines', async () => {
    const { page } = await openConsole(suite.browser, suite.fixture, { view: 'activity' });
    await page
      .getByRole('button', { name: /up__fails/ })
      .first()
      .waitFor();
    await page.getByLabel('State').selectOption('failed');
    const rows = page.getByRole('list', { name: 'calls' }).getByRole('listitem');
    await expect
      .poll(async () => (await rows.allInnerTexts()).every((t) => t.includes('up__fails')))
      .toBe(true);
    await page.getByLabel('State').selectOption('all');
    await page.getByLabel('Search').fill('media');
    await expect
      .poll(async () => (await rows.allInnerTexts()).every((t) => t.includes('up__media')))
      .toBe(true);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export JSON lines' }).click(),
    ]);
    const lines = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    const records = lines.map(
      (line) => JSON.parse(line) as { call: { exposedName: string }; result?: unknown },
    );
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.call.exposedName === 'up__media' && r.result !== undefined)).toBe(true);
    await page.context().close();
  });

  it('lists a call waiting for approval as waiting, with a link to its card in Approvals', async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture, { view: 'activity' });
    const model = await suite.fixture.model();
    const pending = new Promise<{ id: string; callId?: number }>((resolve) => {
      const stop = suite.fixture.gateway.on((event) => {
        if (event.type !== 'approval.pending') return;
        stop();
        resolve(event.approval);
      });
    });
    const call = model.callTool({ name: 'up__write_note', arguments: { text: 'wait for me' } });
    const approval = await pending;
    const row = page.locator(`li.call[data-call="${approval.callId}"]`);
    await row.locator('.badge.state', { hasText: 'waiting' }).waitFor();
    expect(await row.locator('.badge.state').innerText()).toBe('waiting');
    // Its spinner says what it waits for, to a screen reader too.
    expect(await row.getByRole('status', { name: 'waiting for approval' }).count()).toBe(1);
    expect(await row.getByRole('status', { name: 'running' }).count()).toBe(0);
    await page.getByLabel('State').selectOption('waiting');
    await expect.poll(() => page.getByRole('list', { name: 'calls' }).locator('li.call').count()).toBe(1);
    await row
      .getByRole('link', { name: `Approval of call #${approval.callId}: see it in Approvals` })
      .click();
    // The card shows the start of the approval's id, as `toolwire approvals` takes it.
    await page
      .locator(`li[data-approval="${approval.id}"]`)
      .getByText(`id: ${approval.id.slice(0, 8)}`, { exact: true })
      .waitFor();
    await suite.fixture.gateway.approvals.decide(approval.id, { approve: false, decidedBy: 'test' });
    expect((await call).isError).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('lists a call cancelled while it waited for approval under its state, withdrawn', async () => {
    const { page, errors } = await openConsole(suite.browser, suite.fixture, { view: 'activity' });
    const model = await suite.fixture.model();
    const call = model.callTool({ name: 'up__write_note', arguments: { text: 'never' } });
    const rows = page.getByRole('list', { name: 'calls' }).getByRole('listitem');
    const running = rows.filter({ hasText: 'up__write_note' }).filter({ hasText: 'waiting' });
    const id = await running.getAttribute('data-call');
    await running.getByRole('button', { name: `Cancel call #${id}` }).click();
    expect((await call).isError).toBe(true);
    const cancelled = page.locator(`li.call[data-call="${id}"]`);
    await cancelled.getByText('withdrawn', { exact: true }).waitFor();
    expect(await page.getByLabel('State').locator('option').allInnerTexts()).toContain('withdrawn');
    await page.getByLabel('State').selectOption('withdrawn');
    await expect
      .poll(() => rows.evaluateAll((all) => all.map((li) => li.textContent)))
      .toEqual([expect.stringContaining(`#${id} up__write_note`)]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe('the Tools and Upstreams views', () => {
  it("sets a tool's policy for the model's next call, and hides a tool from the model with list_changed", async () => {
    const { page } = await openConsole(suite.browser, suite.fixture, { view: 'tools' });
    const card = page.getByRole('listitem').filter({ hasText: 'Write a note' });
    await card.getByText('rule 1 (*.write_note=ask)').waitFor();
    await screenshot(page, 'tools-light');
    await card.getByLabel('Policy').selectOption('allow');
    await card.getByText('set in the console by console').waitFor();
    const model = await suite.fixture.model();
    const wrote = await model.callTool({ name: 'up__write_note', arguments: { text: 'hi' } });
    expect((wrote.content as { text: string }[])[0]!.text).toBe('wrote hi');
    const changed = new Promise<void>((resolve) =>
      model.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await card.getByLabel('Hide from the model').check();
    await card.getByText('hidden from the model').waitFor();
    await changed;
    const { tools } = await model.listTools();
    expect(tools.map((t) => t.name)).not.toContain('up__write_note');
    expect(tools.map((t) => t.name)).toContain('up__media');
    await card.getByLabel('Hide from the model').uncheck();
    await card.getByLabel('Policy').selectOption('rules');
    await card.getByText('rule 1 (*.write_note=ask)').waitFor();
    await page.context().close();
  });

  it("shows each upstream's status, revision, server, counts, instructions and capabilities", async () => {
    const { page } = await openConsole(suite.browser, suite.fixture, { view: 'upstreams' });
    const card = page.getByRole('listitem').filter({ hasText: 'connected' });
    await card.waitFor();
    const shown = await card.innerText();
    expect(shown).toContain('works 2.0.0');
    expect(shown).toContain('4 tools · 1 resource · 0 templates · 0 prompts');
    expect(shown).toMatch(/\d{4}-\d{2}-\d{2} \((handshake|stateless) era\)/);
    await card.getByText('Instructions').click();
    await card.getByText('Tools for the tests.').waitFor();
    await screenshot(page, 'upstreams-light');
    await page.context().close();
  });

  it('lists the audit records, newest first, with who decided and how calls ended', async () => {
    const { page } = await openConsole(suite.browser, suite.fixture, { view: 'audit' });
    const rows = page.getByRole('table').getByRole('row');
    await rows.filter({ hasText: 'up.fails' }).first().waitFor();
    const texts = await rows.allInnerTexts();
    const seqs = texts.slice(1).map((row) => Number(row.split(/\s/)[0]));
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(texts.some((row) => row.includes('up.fails') && row.includes('tool-error'))).toBe(true);
    expect(texts.some((row) => row.includes('up.long_task') && row.includes('cancelled'))).toBe(true);
    await page.getByText('page 1 of 1').waitFor();
    // On a phone the table scrolls in its own box (reachable by Tab), and the page does not scroll sideways.
    await page.setViewportSize({ width: 375, height: 760 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(375);
    const box = page.getByRole('region', { name: 'audit records' });
    expect(await box.count()).toBe(1);
    expect(await box.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    expect(await box.getAttribute('tabindex')).toBe('0');
    await page.context().close();
  });
});
