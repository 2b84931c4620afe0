import { describe, expect, it } from 'vitest';
import { decodeHeaderValue, encodeHeaderValue, isPlainHeaderValue } from './header-value.js';

describe('header values (2026-07-28 Base64 sentinel)', () => {
  it.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
    ['', '=?base64??='],
  ])('encodes %j as %s (the spec’s examples)', (value, header) => {
    expect(encodeHeaderValue(value)).toBe(header);
    expect(decodeHeaderValue(header)).toBe(value);
  });

  it('keeps plain values with inner spaces and tabs as they are', () => {
    expect(isPlainHeaderValue('a b\tc')).toBe(true);
    expect(encodeHeaderValue('a b')).toBe('a b');
  });

  it('refuses headers with characters a field value may not hold, or a bad sentinel payload', () => {
    expect(decodeHeaderValue('caf\u00e9')).toBeUndefined(); // obs-text, as node hands it over
    expect(decodeHeaderValue('=?base64?!!!!?=')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?SGk?=')).toBeUndefined(); // not padded: not canonical
    expect(decodeHeaderValue('=?base64?/w==?=')).toBeUndefined(); // 0xFF is not UTF-8
  });

  it('treats the markers as case-sensitive', () => {
    expect(decodeHeaderValue('=?BASE64?SGk=?=')).toBe('=?BASE64?SGk=?=');
  });
});
