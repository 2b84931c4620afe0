// The console's Audit in a real browser (en-US, UTC): a record of today shows its time alone, one of
// yesterday its date with it (Nov 27, …), one of an earlier year the year too; each is a <time> whose
// datetime is the record's moment and whose tooltip is the whole date and time.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryAuditStore } from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { launchBrowser, openConsole, startConsoleGateway, type ConsoleFixture } from './_console.js';

const DAY_MS = 86_400_000;

let browser: Browser;
let closeBrowser: () => Promise<void>;
let fixture: ConsoleFixture;
const now = Date.now();
/** The records' moments: today, yesterday, and over a year ago (ISO 8601). */
const times = [now, now - DAY_MS, now - 400 * DAY_MS].map((ms) => new Date(ms).toISOString());

beforeAll(async () => {
  const audit = new MemoryAuditStore();
  for (const time of times.toReversed()) {
    await audit.append({
      time,
      kind: 'call',
      caller: { principal: 'model' },
      upstream: 'up',
      tool: 'echo',
      argumentsDigest: 'sha256:0',
      decision: 'allowed',
      decidedBy: 'policy',
      outcome: 'ok',
    });
  }
  const upstream = new Server({ name: 'up', version: '1.0.0' });
  upstream.tool('echo', { inputSchema: { type: 'object', properties: {} } }, () => text('ok'));
  ({ browser, close: closeBrowser } = await launchBrowser());
  fixture = await startConsoleGateway(upstream, [{ tool: '*', action: 'allow' }], { stores: { audit } });
});

afterAll(async () => {
  await fixture?.close();
  await closeBrowser?.();
});

describe('Audit times', () => {
  it("shows the date of a record that is not today's, and the whole moment in its <time>", async () => {
    const { page, errors, context } = await openConsole(browser, fixture, {
      view: 'audit',
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    // The column of when the calls started (their records' time).
    const cells = page.getByRole('region', { name: 'audit records' }).locator('tbody tr td:nth-child(6)');
    await expect.poll(() => cells.count()).toBe(3);
    const shown = await cells.evaluateAll((all) =>
      all.map((td) => {
        const time = td.querySelector('time');
        return { text: td.textContent, datetime: time?.dateTime, title: time?.title };
      }),
    );
    const at = (ms: number, options: Intl.DateTimeFormatOptions) =>
      new Date(ms).toLocaleString('en-US', { timeZone: 'UTC', ...options });
    const time = (ms: number) => at(ms, { hour: 'numeric', minute: '2-digit', second: '2-digit' });
    const yesterday = now - DAY_MS;
    const longAgo = now - 400 * DAY_MS;
    expect(shown.map((s) => s.text)).toEqual([
      time(now),
      `${at(yesterday, { month: 'short', day: 'numeric' })}, ${time(yesterday)}`,
      `${at(longAgo, { month: 'short', day: 'numeric', year: 'numeric' })}, ${time(longAgo)}`,
    ]);
    expect(shown.map((s) => s.datetime)).toEqual(times);
    expect(shown[1]!.title).toBe(at(yesterday, { dateStyle: 'full', timeStyle: 'long' }));
    expect(errors).toEqual([]);
    await context.close();
  });
});
