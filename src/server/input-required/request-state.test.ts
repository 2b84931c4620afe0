import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../protocol/errors.js';
import { RequestStateCodec, requestStateCodec, type RequestBinding } from './request-state.js';

const BINDING: RequestBinding = { method: 'tools/call', paramsDigest: 'digest-of-params' };
const STATE = {
  answers: { 'elicit-1': ['q1', { action: 'accept', content: { name: 'Ada' } }] as [string, never] },
  asked: { 'sample-2': 'q2' },
};

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  const { code, message, data } = error as ProtocolError;
  expect({ code, message }).toEqual({ code: -32602, message: 'Invalid params: invalid requestState' });
  return (data as { reason: string }).reason;
}

describe('RequestStateCodec', () => {
  it('opens what it sealed, for the same request', async () => {
    const codec = new RequestStateCodec({ secret: 'k'.repeat(32) });
    const token = await codec.seal(BINDING, STATE);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(await codec.open(token, BINDING)).toEqual(STATE);
  });

  it('refuses a state with any one character changed', async () => {
    const codec = new RequestStateCodec({ secret: 'k'.repeat(32) });
    const token = await codec.seal(BINDING, STATE);
    for (let i = 0; i < token.length; i++) {
      const flipped = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expect(await refusal(codec.open(flipped, BINDING))).toMatch(/^(forged|malformed)$/);
    }
  });

  it('refuses a state made for another method, other params or another principal', async () => {
    const codec = new RequestStateCodec({ secret: 'k'.repeat(32) });
    const token = await codec.seal({ ...BINDING, principal: 'alice' }, STATE);
    expect(await refusal(codec.open(token, { ...BINDING, principal: 'bob' }))).toBe('mismatch');
    expect(await refusal(codec.open(token, BINDING))).toBe('mismatch');
    const plain = await codec.seal(BINDING, STATE);
    expect(await refusal(codec.open(plain, { ...BINDING, method: 'prompts/get' }))).toBe('mismatch');
    expect(await refusal(codec.open(plain, { ...BINDING, paramsDigest: 'other' }))).toBe('mismatch');
  });

  it('refuses a state once its lifetime has passed', async () => {
    let now = 1_000_000;
    const codec = new RequestStateCodec({ secret: 'k'.repeat(32), ttlMs: 60_000, now: () => now });
    const token = await codec.seal(BINDING, STATE);
    now += 59_999;
    await expect(codec.open(token, BINDING)).resolves.toEqual(STATE);
    now += 1;
    expect(await refusal(codec.open(token, BINDING))).toBe('expired');
  });

  it('refuses a state sealed with another secret, and junk', async () => {
    const ours = new RequestStateCodec({ secret: new Uint8Array(32).fill(1) });
    const theirs = new RequestStateCodec({ secret: new Uint8Array(32).fill(2) });
    const token = await theirs.seal(BINDING, STATE);
    expect(await refusal(ours.open(token, BINDING))).toBe('forged');
    for (const junk of ['', 'abc', 'a.b.c', '..', 42, null]) {
      expect(await refusal(ours.open(junk, BINDING))).toMatch(/^(forged|malformed)$/);
    }
  });

  it('shares one random key between the servers of a process when no secret is given', async () => {
    const a = requestStateCodec({});
    const b = requestStateCodec({});
    expect(a).not.toBe(b);
    expect(await b.open(await a.seal(BINDING, STATE), BINDING)).toEqual(STATE);
    const options = {};
    expect(requestStateCodec(options)).toBe(requestStateCodec(options));
  });

  it('refuses an empty secret', () => {
    expect(() => new RequestStateCodec({ secret: '' })).toThrow(/must not be empty/);
  });
});
