import { describe, expect, it } from 'vitest';
import { resourceNotFound, toReadResult } from './read-result.js';

const URI = 'test://r';

describe('toReadResult', () => {
  it('turns text into text contents typed with the resource mimeType', () => {
    expect(toReadResult('hi', URI, 'text/plain')).toEqual({
      contents: [{ uri: URI, mimeType: 'text/plain', text: 'hi' }],
    });
    expect(toReadResult('hi', URI, undefined)).toEqual({ contents: [{ uri: URI, text: 'hi' }] });
  });

  it('turns bytes into base64 blob contents', () => {
    expect(toReadResult(new Uint8Array([104, 105]), URI, 'application/octet-stream')).toEqual({
      contents: [{ uri: URI, mimeType: 'application/octet-stream', blob: 'aGk=' }],
    });
  });

  it('accepts one contents object, an array, or a whole result, filling in the URI read', () => {
    expect(toReadResult({ text: 'a' }, URI, undefined)).toEqual({ contents: [{ uri: URI, text: 'a' }] });
    expect(toReadResult([{ uri: 'test://other', blob: new Uint8Array([1]) }], URI, 'x/y')).toEqual({
      contents: [{ uri: 'test://other', blob: 'AQ==' }],
    });
    expect(
      toReadResult({ contents: [{ text: 'a', _meta: { k: 1 } }], _meta: { m: 2 } }, URI, undefined),
    ).toEqual({
      contents: [{ uri: URI, text: 'a', _meta: { k: 1 } }],
      _meta: { m: 2 },
    });
  });

  it.each([null, 3, [{ uri: URI }], { contents: [1] }])('refuses %j with a TypeError', (value) => {
    expect(() => toReadResult(value, URI, undefined)).toThrow(TypeError);
  });
});

describe('resourceNotFound', () => {
  it('is the -32002 error with the URI as data', () => {
    expect(resourceNotFound(URI).toJSON()).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: URI },
    });
  });
});
