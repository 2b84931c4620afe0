import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataProblem, isBase64 } from './content-checks.js';

/** Base64 alphabet characters and the padding, often in the places a decoder is lenient about. */
const base64ish = fc.stringMatching(/^[A-Za-z0-9+/=]{0,16}$/);

describe('isBase64', () => {
  it('accepts what an encoder writes, for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(isBase64(Buffer.from(bytes).toString('base64'))).toBe(true);
      }),
      { seed: 20261127, numRuns: 500 },
    );
  });

  it('accepts exactly the text that stands for one byte sequence: decoded and encoded again, it is the same', () => {
    fc.assert(
      fc.property(base64ish, (text) => {
        const canonical =
          /^[A-Za-z0-9+/=]*$/.test(text) && Buffer.from(text, 'base64').toString('base64') === text;
        expect(isBase64(text)).toBe(canonical);
      }),
      { seed: 20261127, numRuns: 2_000 },
    );
  });

  it('refuses padding bits that are not zero, and runs in linear time on long near-misses', () => {
    expect(isBase64('QQ==')).toBe(true);
    expect(isBase64('QR==')).toBe(false);
    expect(isBase64('QUE=')).toBe(true);
    expect(isBase64('QUF=')).toBe(false);
    // 20 MB, good and with a bad end: a pattern that backtracks through a repeated group overflows its stack
    // (RangeError) on such a string, or takes far longer than the suite allows.
    expect(isBase64(`${'AAAA'.repeat(5_000_000)}QQ==`)).toBe(true);
    expect(isBase64(`${'AAAA'.repeat(5_000_000)}AA=A`)).toBe(false);
  });
});

describe('dataProblem', () => {
  it('checks a block again once it holds other data, and an embedded resource once its blob changed', () => {
    const image = { type: 'image', mimeType: 'image/png', data: 'QQ==' };
    expect(dataProblem(image)).toBeUndefined();
    image.data = 'QR==';
    expect(dataProblem(image)).toBe('an image block whose data is not base64 (RFC 4648, padded)');
    image.data = ['Q', 'Q==='].join('').slice(0, 4); // the same text as first, another string
    expect(dataProblem(image)).toBeUndefined();
    const resource = { uri: 'file:///a', blob: 'QQ==' };
    const block = { type: 'resource', resource };
    expect(dataProblem(block)).toBeUndefined();
    resource.blob = 'Q===';
    expect(dataProblem(block)).toBe('an embedded resource whose blob is not base64 (RFC 4648, padded)');
  });
});
