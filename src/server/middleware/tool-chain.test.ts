import { describe, expect, it } from 'vitest';
import { fakeCall, ok } from '../../../test/_calls.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import { ToolChain } from './tool-chain.js';

// Every built-in a server has by default (rate limit, concurrency cap, timeout, sanitization).
const chain = (): ToolChain => new ToolChain();

describe('ToolChain.run', () => {
  it('gives a synchronous handler’s result as it is: no promise, no microtask', () => {
    const result = chain().run(fakeCall(), () => ok('now'));
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toEqual(ok('now'));
  });

  it('still sanitizes a result that came at once', () => {
    const secret = 'ghp_' + 'a'.repeat(36);
    const result = chain().run(fakeCall(), () => ok(`token ${secret}`)) as CallToolResult;
    expect(JSON.stringify(result)).not.toContain(secret);
  });

  it('gives a promise once a handler waits, and times it out', async () => {
    const call = fakeCall({ tool: { limits: { timeout: 20 } } });
    const running = chain().run(call, () => new Promise<CallToolResult>(() => {}));
    expect(running).toBeInstanceOf(Promise);
    await expect(running).resolves.toMatchObject({ isError: true });
    expect(call.signal.aborted).toBe(true);
  });

  it('gives middleware added with use() a promise from next, and returns one', async () => {
    const tools = chain();
    const seen: boolean[] = [];
    tools.use((_call, next) => {
      const rest = next();
      seen.push(rest instanceof Promise);
      return rest;
    });
    const running = tools.run(fakeCall(), () => ok('later'));
    expect(running).toBeInstanceOf(Promise);
    await expect(running).resolves.toEqual(ok('later'));
    expect(seen).toEqual([true]);
  });

  it('turns a synchronous throw of the handler into a rejection', async () => {
    const running = chain().run(fakeCall(), () => {
      throw new Error('boom');
    });
    await expect(running).rejects.toThrow('boom');
  });

  it('records a synchronous call in the audit log with its outcome', async () => {
    const records: unknown[] = [];
    const tools = new ToolChain({ audit: { sink: { write: (record) => void records.push(record) } } });
    await tools.run(fakeCall(), () => ok());
    expect(records).toEqual([expect.objectContaining({ tool: 'echo', decision: 'allowed' })]);
  });
});
