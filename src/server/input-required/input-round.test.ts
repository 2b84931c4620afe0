import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import { InputRound } from './input-round.js';
import { RequestStateCodec } from './request-state.js';

const codec = new RequestStateCodec({ secret: 'unit-test-secret-unit-test-secret' });
const CAPS = { elicitation: {}, sampling: {}, roots: {} };
const ACCEPT = (name: string) => ({ action: 'accept', content: { name } });

const open = (params: JsonObject = { name: 'tool' }, capabilities: JsonObject = CAPS) =>
  InputRound.open({ method: 'tools/call', params, capabilities, codec });

/** Runs `handler` through the rounds, answering every question with `answer(key)`. */
async function drive(
  handler: (round: InputRound) => Promise<string>,
  answer: (key: string, request: unknown) => JsonObject,
): Promise<{ value: unknown; rounds: string[][] }> {
  const rounds: string[][] = [];
  let params: JsonObject = { name: 'tool' };
  for (;;) {
    const round = await open(params);
    const value = await round.run(() => handler(round));
    if (typeof value === 'string') return { value, rounds };
    const keys = Object.keys(value.inputRequests ?? {});
    rounds.push(keys);
    const inputResponses = Object.fromEntries(
      keys.map((key) => [key, answer(key, value.inputRequests?.[key])]),
    );
    params = { name: 'tool', inputResponses, requestState: value.requestState! };
  }
}

describe('InputRound', () => {
  it('runs a handler without questions straight through, with no state', async () => {
    const round = await open();
    expect(await round.run(async () => 'done')).toBe('done');
  });

  it('asks each sequential question in its own round, keyed by call order', async () => {
    const { value, rounds } = await drive(
      async (round) => {
        const a = await round.ask('elicitation/create', { message: 'first?' });
        const b = await round.ask('elicitation/create', { message: 'second?' });
        return `${String((a.content as JsonObject).name)}+${String((b.content as JsonObject).name)}`;
      },
      (key) => ACCEPT(key),
    );
    expect(rounds).toEqual([['elicit-1'], ['elicit-2']]);
    expect(value).toBe('elicit-1+elicit-2');
  });

  it('ends with input_required even when the handler swallows the wait', async () => {
    const round = await open();
    const result = await round.run(async () => {
      try {
        await round.ask('roots/list', undefined);
      } catch {
        return 'fallback';
      }
      return 'roots';
    });
    expect(result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'roots-1': { method: 'roots/list' } },
    });
  });

  it('asks again when the handler asks a different question under a key already answered', async () => {
    let question = 'delete 3 files?';
    const round1 = await open();
    const r1 = await round1.run(
      async () => (await round1.ask('elicitation/create', { message: question })).action as string,
    );
    if (typeof r1 === 'string') throw new Error('expected input_required');
    question = 'delete 4 files?';
    const round2 = await open({
      name: 'tool',
      inputResponses: { 'elicit-1': { action: 'accept' } },
      requestState: r1.requestState!,
    });
    const r2 = await round2.run(
      async () => (await round2.ask('elicitation/create', { message: question })).action as string,
    );
    expect(r2).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'elicit-1': { params: { message: 'delete 4 files?' } } },
    });
  });

  it('takes inputResponses that come without a requestState as answers to the first round', async () => {
    const round = await open({ name: 'tool', inputResponses: { 'elicit-1': ACCEPT('early') } });
    const result = await round.run(
      async () => (await round.ask('elicitation/create', { message: 'x' })).action as string,
    );
    expect(result).toBe('accept');
    const unanswered = await open({ name: 'tool', inputResponses: { 'other-key': ACCEPT('early') } });
    const next = await unanswered.run(
      async () => (await unanswered.ask('elicitation/create', { message: 'x' })).action as string,
    );
    expect(next).toMatchObject({ resultType: 'input_required' });
  });

  it('refuses a question whose capability the request lacks with -32021', async () => {
    const round = await open({ name: 'tool' }, { elicitation: { url: {} } });
    await expect(
      round.run(() => round.ask('elicitation/create', { message: 'form?' })),
    ).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
    const sampling = await open({ name: 'tool' }, { sampling: {} });
    await expect(
      sampling.run(() => sampling.ask('sampling/createMessage', { messages: [], maxTokens: 1, tools: [] })),
    ).rejects.toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: { tools: {} } } } });
  });

  it('drops elicitationId, which the stateless era does not have', async () => {
    const round = await open({ name: 'tool' }, { elicitation: { url: {} } });
    const params = { mode: 'url', message: 'Sign in', url: 'https://example.com', elicitationId: 'e1' };
    const result = await round.run(() => round.ask('elicitation/create', params));
    expect(result).toMatchObject({
      inputRequests: {
        'elicit-1': { params: { mode: 'url', message: 'Sign in', url: 'https://example.com' } },
      },
    });
    expect(JSON.stringify(result)).not.toContain('elicitationId');
  });

  it('refuses inputResponses that are not an object with -32602', async () => {
    await expect(open({ name: 'tool', inputResponses: [] })).rejects.toMatchObject({ code: -32602 });
  });
});
