import { describe, expect, it } from 'vitest';
import { argumentsDigest } from '../client/index.js';
import type { JsonObject } from '../index.js';
import { digestOfText } from '../stores/digest-of-text.js';
import { canonicalArguments } from './arguments-digest.js';

const digestOf = (args: JsonObject): string => digestOfText(canonicalArguments(args));

describe('digestOfText(canonicalArguments(args))', () => {
  it.each([
    {},
    { text: 'hello' },
    { b: 1, a: 2 },
    { a: { d: [1, { z: 1, y: 2 }], c: null }, b: 'x' },
    { list: [{ b: 1, a: 1 }, 'é', 1.5, true] },
  ])('is the client argumentsDigest of %j, keys in order or not', async (args) => {
    expect(digestOf(args)).toBe(await argumentsDigest(args));
  });

  it('is the same for the same arguments whatever their key order', () => {
    expect(digestOf({ a: 1, b: { c: 2, d: 3 } })).toBe(digestOf({ b: { d: 3, c: 2 }, a: 1 }));
  });
});
