import { describe, expect, it } from 'vitest';
import { completersOf, runCompleter } from './completer.js';

const context = { arguments: {}, signal: new AbortController().signal };

describe('runCompleter', () => {
  it('returns every value with its total when there are at most 100', async () => {
    expect(await runCompleter(() => ['a', 'b'], '', context)).toEqual({
      completion: { values: ['a', 'b'], total: 2, hasMore: false },
    });
  });

  it('caps the values at 100 and says there are more', async () => {
    const many = Array.from({ length: 150 }, (_, i) => `v${i}`);
    const { completion } = await runCompleter(async () => many, '', context);
    expect(completion.values).toHaveLength(100);
    expect(completion).toMatchObject({ total: 150, hasMore: true });
  });

  it('suggests nothing without a completer', async () => {
    expect(await runCompleter(undefined, 'x', context)).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
  });

  it('passes the value typed and the context', async () => {
    const seen: unknown[] = [];
    await runCompleter((value, ctx) => (seen.push(value, ctx.arguments), []), 'pa', {
      ...context,
      arguments: { other: 'x' },
    });
    expect(seen).toEqual(['pa', { other: 'x' }]);
  });

  it('refuses an answer that is not an array of strings', async () => {
    await expect(runCompleter(() => [1] as never, '', context)).rejects.toThrow(TypeError);
  });
});

describe('completersOf', () => {
  it('refuses a completer for a name that does not exist', () => {
    expect(() => completersOf('Prompt "p"', { nope: () => [] }, ['arg'])).toThrow(
      expect.objectContaining({ code: 'INVALID_DEFINITION' }),
    );
  });

  it('keeps the completers of known names', () => {
    const complete = () => ['x'];
    expect([...completersOf('Prompt "p"', { arg: complete, other: undefined }, ['arg', 'other'])]).toEqual([
      ['arg', complete],
    ]);
  });
});
