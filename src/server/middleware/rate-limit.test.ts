import { describe, expect, it } from 'vitest';
import { fakeCall, ok } from '../../../test/_calls.js';
import { ProtocolError } from '../../protocol/errors.js';
import { MemoryRateLimitStore } from '../../stores/rate-limit-store.js';
import { DEFAULT_CALLER_RATE_LIMIT, callerKey, rateLimit } from './rate-limit.js';

const clock = () => {
  const c = { now: 0, store: undefined as unknown as MemoryRateLimitStore };
  c.store = new MemoryRateLimitStore({ now: () => c.now });
  return c;
};

async function attempt(mw: ReturnType<typeof rateLimit>, call = fakeCall()): Promise<unknown> {
  return mw(call, async () => ok()).then(
    () => 'ok',
    (error: unknown) => error,
  );
}

describe('rateLimit', () => {
  it('lets a burst through and refuses the next call with -31429 and retryAfterMs', async () => {
    const { store } = clock();
    const mw = rateLimit({ store, global: { burst: 5, perSecond: 1 } });
    const outcomes = [];
    for (let i = 0; i < 6; i++) outcomes.push(await attempt(mw));
    expect(outcomes.slice(0, 5)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    const error = outcomes[5] as ProtocolError;
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.toJSON()).toEqual({
      code: -31429,
      message: 'Rate limit exceeded for the server; retry after 1000 ms',
      data: { retryAfterMs: 1000, limit: 'global' },
    });
  });

  it('marks the refused call rate_limited and never runs the handler', async () => {
    const { store } = clock();
    const mw = rateLimit({ store, global: { burst: 1, perSecond: 1 } });
    await attempt(mw);
    const call = fakeCall();
    let ran = false;
    await mw(call, async () => ((ran = true), ok())).catch(() => {});
    expect(ran).toBe(false);
    expect(call.decision).toBe('rate_limited');
  });

  it('counts per caller: one caller over its limit does not hold back another', async () => {
    const { store } = clock();
    const mw = rateLimit({ store, global: false, perCaller: { burst: 2, perSecond: 1 } });
    const alice = () => fakeCall({ principal: { subject: 'alice', scopes: [] } });
    const bob = () => fakeCall({ principal: { subject: 'bob', scopes: [] } });
    expect(await attempt(mw, alice())).toBe('ok');
    expect(await attempt(mw, alice())).toBe('ok');
    expect(await attempt(mw, alice())).toMatchObject({ data: { limit: 'caller' } });
    expect(await attempt(mw, bob())).toBe('ok');
  });

  it("applies a tool's own bucket per caller, and rateLimit: false exempts a tool from perTool", async () => {
    const { store } = clock();
    const mw = rateLimit({ store, global: false, perTool: { burst: 1, perSecond: 1 } });
    const search = (sessionId: string) =>
      fakeCall({ sessionId, tool: { name: 'search', limits: { rateLimit: { burst: 2, perSecond: 1 } } } });
    expect(await attempt(mw, search('s1'))).toBe('ok');
    expect(await attempt(mw, search('s1'))).toBe('ok');
    expect(await attempt(mw, search('s1'))).toMatchObject({
      message: 'Rate limit exceeded for tool search; retry after 1000 ms',
      data: { limit: 'tool' },
    });
    expect(await attempt(mw, search('s2'))).toBe('ok');
    const free = () => fakeCall({ tool: { name: 'free', limits: { rateLimit: false } } });
    for (let i = 0; i < 3; i++) expect(await attempt(mw, free())).toBe('ok');
    const other = () => fakeCall({ tool: { name: 'other' } });
    expect(await attempt(mw, other())).toBe('ok');
    expect(await attempt(mw, other())).toMatchObject({ data: { limit: 'tool' } });
  });

  it('refills with time', async () => {
    const c = clock();
    const mw = rateLimit({ store: c.store, global: { burst: 1, perSecond: 4 } });
    expect(await attempt(mw)).toBe('ok');
    expect(await attempt(mw)).toMatchObject({ data: { retryAfterMs: 250 } });
    c.now += 250;
    expect(await attempt(mw)).toBe('ok');
  });

  it('has a generous default per caller, so one caller over it holds back no other, and can be turned off', async () => {
    const { store } = clock();
    const mw = rateLimit({ store });
    const flooder = () => fakeCall({ sessionId: 'flooder' });
    for (let i = 0; i < DEFAULT_CALLER_RATE_LIMIT.burst; i++) expect(await attempt(mw, flooder())).toBe('ok');
    expect(await attempt(mw, flooder())).toMatchObject({ data: { limit: 'caller' } });
    expect(await attempt(mw, fakeCall({ sessionId: 'other' }))).toBe('ok');
    expect(await attempt(mw, fakeCall({ clientAddress: '127.0.0.2' }))).toBe('ok');
    const off = rateLimit({ store, perCaller: false });
    expect(await attempt(off, flooder())).toBe('ok');
  });

  it('keeps a global bucket, shared by every caller, for who asks for one', async () => {
    const { store } = clock();
    const mw = rateLimit({ store, global: { burst: 2, perSecond: 1 } });
    expect(await attempt(mw, fakeCall({ sessionId: 'a' }))).toBe('ok');
    expect(await attempt(mw, fakeCall({ sessionId: 'a' }))).toBe('ok');
    expect(await attempt(mw, fakeCall({ sessionId: 'b' }))).toMatchObject({ data: { limit: 'global' } });
  });

  it('refuses a bucket no call could get a token from', () => {
    expect(() => rateLimit({ global: { burst: 0, perSecond: 1 } })).toThrow(/burst/);
    expect(() => rateLimit({ perCaller: { burst: 1, perSecond: 0 } })).toThrow(/perSecond/);
  });

  it('keys callers by principal, else session, else client address, else anonymous', () => {
    const principal = { subject: 'p', scopes: [] };
    expect(callerKey({ principal, sessionId: 's', clientAddress: '::1' })).toBe('principal:p');
    expect(callerKey({ principal: undefined, sessionId: 's', clientAddress: '::1' })).toBe('session:s');
    expect(callerKey({ principal: undefined, sessionId: undefined, clientAddress: '::1' })).toBe(
      'address:::1',
    );
    expect(callerKey({ principal: undefined, sessionId: undefined })).toBe('anonymous');
  });
});
