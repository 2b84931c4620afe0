import { describe, expect, it } from 'vitest';
import { fakeCall, ok } from '../../../test/_calls.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import { timeout } from './timeout.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<CallToolResult>(() => {});

describe('timeout', () => {
  it("aborts the handler's signal and answers isError saying so", async () => {
    const mw = timeout({ defaultMs: 40 });
    const call = fakeCall();
    const started = Date.now();
    const result = await mw(call, never);
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Tool echo timed out after 40 ms' }],
      isError: true,
    });
    expect(call.signal.aborted).toBe(true);
    expect((call.signal.reason as DOMException).name).toBe('TimeoutError');
    expect(call.decision).toBe('timed_out');
  });

  it("prefers the tool's own timeout, and 0 means none", async () => {
    const mw = timeout({ defaultMs: 10_000 });
    const quick = fakeCall({ tool: { limits: { timeout: 20 } } });
    expect((await mw(quick, never)).isError).toBe(true);
    const unlimited = fakeCall({ tool: { limits: { timeout: 0 } } });
    await expect(mw(unlimited, async () => (await sleep(30), ok()))).resolves.toEqual(ok());
  });

  it('gives tools declared for tasks no default timeout', async () => {
    const mw = timeout({ defaultMs: 10 });
    const call = fakeCall({ tool: { task: true } });
    await expect(mw(call, async () => (await sleep(30), ok()))).resolves.toEqual(ok());
  });

  it('passes a result or an error through when the handler is in time', async () => {
    const mw = timeout({ defaultMs: 1000 });
    await expect(mw(fakeCall(), async () => ok('fine'))).resolves.toEqual(ok('fine'));
    await expect(
      mw(fakeCall(), async () => {
        throw new Error('bad');
      }),
    ).rejects.toThrow('bad');
  });

  it('drops a late result', async () => {
    const mw = timeout({ defaultMs: 10 });
    const result = await mw(fakeCall(), async () => (await sleep(300), ok('late')));
    expect(result.isError).toBe(true);
  });

  it('does not count the time the handler waits for the client', async () => {
    const mw = timeout({ defaultMs: 60 });
    const call = fakeCall();
    const result = await mw(call, async () => {
      const answered = call.waitForInput();
      await sleep(120); // a person answering a form
      answered();
      await sleep(20);
      return ok('answered');
    });
    expect(result).toEqual(ok('answered'));
  });
});
