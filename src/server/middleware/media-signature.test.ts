import { describe, expect, it } from 'vitest';
import { decodedSize, essence, mediaMismatch } from './media-signature.js';

const b64 = (bytes: number[] | string) =>
  btoa(typeof bytes === 'string' ? bytes : String.fromCharCode(...bytes));
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const WAV = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==';

describe('mediaMismatch', () => {
  it.each([
    [PNG, 'image/png'],
    [b64([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'image/jpeg'],
    [b64([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'image/jpg'],
    [b64('GIF89a\x01\x00'), 'image/gif'],
    [b64('RIFF\x10\x00\x00\x00WEBPVP8 '), 'image/webp'],
    [WAV, 'audio/wav'],
    [WAV, 'audio/x-wav'],
    [b64('ID3\x04\x00'), 'audio/mpeg'],
    [b64([0xff, 0xfb, 0x90, 0x64]), 'audio/mp3'],
    [b64('OggS\x00\x02'), 'audio/ogg; codecs=opus'],
    [b64('RIFF'), 'audio/wav'], // too short to name its form: the RIFF header alone
    [b64('<svg/>'), 'image/svg+xml'], // no known signature: not checked
  ])('accepts matching data (%#: %s)', (data, mime) => {
    expect(mediaMismatch(data, mime)).toBeUndefined();
  });

  it.each([
    [PNG, 'image/jpeg', 'its data is not image/jpeg'],
    [WAV, 'image/webp', 'its data is not image/webp'],
    [b64('RIFF\x10\x00\x00\x00WEBPVP8 '), 'audio/wav', 'its data is not audio/wav'],
    [b64('<html>'), 'image/png', 'its data is not image/png'],
    [b64([0xff, 0x00, 0x00]), 'audio/mpeg', 'its data is not audio/mpeg'],
    ['', 'image/png', 'its data is not image/png'],
    ['not base64!', 'image/png', 'its data is not valid base64'],
    ['iVBORw0', 'image/png', 'its data is not valid base64'],
  ])('refuses mismatching data (%#)', (data, mime, why) => {
    expect(mediaMismatch(data, mime)).toBe(why);
  });

  it('handles megabytes of data without decoding all of it', () => {
    const big = PNG.slice(0, 24) + 'A'.repeat(4 * 1024 * 1024);
    expect(mediaMismatch(big, 'image/png')).toBeUndefined();
  });

  it('normalizes MIME types and counts decoded bytes', () => {
    expect(essence(' Audio/X-WAV ; rate=8000')).toBe('audio/wav');
    expect(decodedSize(b64('abcd'))).toBe(4);
    expect(decodedSize(b64('abcde'))).toBe(5);
    expect(decodedSize(b64('abcdef'))).toBe(6);
  });
});
