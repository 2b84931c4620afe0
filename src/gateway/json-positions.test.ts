import { describe, expect, it } from 'vitest';
import { jsonPositions } from './json-positions.js';

const TEXT = `{
  "upstreams": {
    "a/b": { "command": 5, "args": ["x", "y\\"}]", 7] },
    "skip": { "deep": [[[{"x": "{"}]]], "command": "z" },
    "c~d": {"command": null}
  },
  "policy": { "rules": [ {"action": "maybe"}, { "action" : "ask" } ] },
  "dup": 1,
  "dup": [true]
}`;

describe('jsonPositions', () => {
  it('finds the line and column of the value at each pointer', () => {
    expect(JSON.parse(TEXT)).toBeTruthy();
    const positions = jsonPositions(TEXT, [
      '',
      '/upstreams',
      '/upstreams/a~1b/command',
      '/upstreams/a~1b/args/2',
      '/upstreams/skip/command',
      '/upstreams/c~0d/command',
      '/policy/rules/1/action',
      '/policy/rules/0',
    ]);
    expect(Object.fromEntries(positions)).toEqual({
      '': { line: 1, column: 1 },
      '/upstreams': { line: 2, column: 16 },
      '/upstreams/a~1b/command': { line: 3, column: 25 },
      '/upstreams/a~1b/args/2': { line: 3, column: 51 },
      '/upstreams/skip/command': { line: 4, column: 52 },
      '/upstreams/c~0d/command': { line: 5, column: 24 },
      '/policy/rules/1/action': { line: 7, column: 60 },
      '/policy/rules/0': { line: 7, column: 26 },
    });
  });

  it('finds a member named twice where JSON.parse takes it from, the last', () => {
    expect(Object.fromEntries(jsonPositions(TEXT, ['/dup', '/dup/0']))).toEqual({
      '/dup': { line: 9, column: 10 },
      '/dup/0': { line: 9, column: 11 },
    });
  });

  it('leaves out pointers to no value in the text', () => {
    const positions = jsonPositions(TEXT, ['/missing', '/upstreams/a~1b/args/9', '/dup/0/x', 'no-slash']);
    expect(positions.size).toBe(0);
  });

  it('skips what no pointer names without descending into it, however deep (linear, flat)', () => {
    const depth = 200_000;
    const text = `{"deep": ${'['.repeat(depth)}${']'.repeat(depth)}, "after": "x\\\\"}`;
    expect(Object.fromEntries(jsonPositions(text, ['/after']))).toEqual({
      '/after': { line: 1, column: depth * 2 + 21 },
    });
  });
});
