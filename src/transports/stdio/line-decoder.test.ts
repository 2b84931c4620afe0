import { describe, expect, it } from 'vitest';
import { ErrorCode, LocalErrorCode, ProtocolError } from '../../protocol/errors.js';
import { TransportError } from '../transport-error.js';
import { LineDecoder, serializeMessage, type DecodedItem } from './line-decoder.js';

const values = (items: DecodedItem[]): unknown[] =>
  items.map((item) => (item.kind === 'message' ? item.value : item.kind));

describe('LineDecoder', () => {
  it('returns nothing until a line is complete, then the parsed value', () => {
    const decoder = new LineDecoder();
    expect(decoder.push('{"jsonrpc":"2.0",')).toEqual([]);
    expect(decoder.push('"method":"ping"')).toEqual([]);
    expect(values(decoder.push('}\n'))).toEqual([{ jsonrpc: '2.0', method: 'ping' }]);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('parses many messages from one chunk, in order', () => {
    const decoder = new LineDecoder();
    const chunk = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ i }) + '\n').join('');
    const items = decoder.push(Buffer.from(chunk));
    expect(items).toHaveLength(1000);
    expect(values(items)).toEqual(Array.from({ length: 1000 }, (_, i) => ({ i })));
  });

  it('decodes a multi-byte UTF-8 character split across chunks', () => {
    const decoder = new LineDecoder();
    const bytes = Buffer.from(JSON.stringify({ text: 'héllo 🌍 世界' }) + '\n', 'utf8');
    const items: DecodedItem[] = [];
    // One byte at a time splits every multi-byte character.
    for (const byte of bytes) items.push(...decoder.push(Uint8Array.of(byte)));
    expect(values(items)).toEqual([{ text: 'héllo 🌍 世界' }]);
  });

  it('ignores blank lines and a trailing carriage return (CRLF)', () => {
    const decoder = new LineDecoder();
    const items = decoder.push('\n\r\n   \n{"a":1}\r\n\n{"b":2}\r');
    expect(values(items)).toEqual([{ a: 1 }]);
    expect(values(decoder.push('\n'))).toEqual([{ b: 2 }]);
  });

  it('reports a line that is not JSON as a -32700 ProtocolError and keeps decoding', () => {
    const decoder = new LineDecoder();
    const items = decoder.push('not json\n{"ok":true}\n');
    expect(items).toHaveLength(2);
    const [bad, good] = items;
    expect(bad?.kind).toBe('parse-error');
    if (bad?.kind !== 'parse-error') throw new Error('expected a parse error');
    expect(bad.error).toBeInstanceOf(ProtocolError);
    expect(bad.error.code).toBe(ErrorCode.ParseError);
    expect(bad.error.message).toMatch(/^Parse error: /);
    expect(good).toEqual({ kind: 'message', value: { ok: true } });
  });

  it('reports a line nested deeper than 1024 levels as a -32700 ProtocolError, and parses one at 1024', () => {
    const decoder = new LineDecoder();
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const [deep, limit] = decoder.push(`${nested(1_000_000)}\n${nested(1024)}\n`);
    expect(deep?.kind === 'parse-error' && deep.error.toJSON()).toEqual({
      code: ErrorCode.ParseError,
      message: 'Parse error: JSON nested deeper than 1024 levels',
    });
    expect(limit?.kind).toBe('message');
  });

  it('discards a too-large line with one MESSAGE_TOO_LARGE error and recovers on the next line', () => {
    const decoder = new LineDecoder({ maxMessageSize: 100 });
    const chunk = 'x'.repeat(60);
    const items: DecodedItem[] = [];
    items.push(...decoder.push('{"data":"'));
    for (let i = 0; i < 1000; i++) {
      items.push(...decoder.push(chunk));
      expect(decoder.bufferedBytes).toBeLessThanOrEqual(101);
    }
    items.push(...decoder.push('"}\n{"next":1}\n'));
    expect(items.map((item) => item.kind)).toEqual(['too-large', 'message']);
    const [tooLarge, next] = items;
    if (tooLarge?.kind !== 'too-large') throw new Error('expected too-large');
    expect(tooLarge.error).toBeInstanceOf(TransportError);
    expect(tooLarge.error.code).toBe(LocalErrorCode.MessageTooLarge);
    expect(next).toEqual({ kind: 'message', value: { next: 1 } });
  });

  it('rejects a too-large line that arrives whole in one chunk', () => {
    const decoder = new LineDecoder({ maxMessageSize: 10 });
    const items = decoder.push(`"${'y'.repeat(20)}"\n[1]\n`);
    expect(items.map((item) => item.kind)).toEqual(['too-large', 'message']);
  });

  it('accepts a line of exactly the maximum size, measured in bytes, with or without CR', () => {
    const line = JSON.stringify('é'.repeat(4)); // 10 bytes
    expect(values(new LineDecoder({ maxMessageSize: 10 }).push(line + '\r\n'))).toEqual(['éééé']);
    expect(values(new LineDecoder({ maxMessageSize: 9 }).push(line + '\n'))).toEqual(['too-large']);
    const split = new LineDecoder({ maxMessageSize: 10 });
    expect(split.push(line + '\r')).toEqual([]);
    expect(values(split.push('\n'))).toEqual(['éééé']);
  });

  it('decodes a final line without a newline on end()', () => {
    const decoder = new LineDecoder();
    expect(decoder.push('{"last":true}')).toEqual([]);
    expect(values(decoder.end())).toEqual([{ last: true }]);
    expect(decoder.end()).toEqual([]);
  });

  it('does not keep a reference to the caller’s buffer', () => {
    const decoder = new LineDecoder();
    const buffer = Buffer.from('{"a":');
    decoder.push(buffer);
    buffer.fill(0x20);
    expect(values(decoder.push('1}\n'))).toEqual([{ a: 1 }]);
  });

  it('rejects a non-positive maximum size', () => {
    expect(() => new LineDecoder({ maxMessageSize: 0 })).toThrow(RangeError);
  });
});

describe('serializeMessage', () => {
  it('writes one line per message, escaping newlines inside strings', () => {
    const line = serializeMessage({ jsonrpc: '2.0', method: 'note', params: { text: 'a\nb\r\nc\u2028' } });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/[\n\r]/);
    expect(values(new LineDecoder().push(line))).toEqual([
      { jsonrpc: '2.0', method: 'note', params: { text: 'a\nb\r\nc\u2028' } },
    ]);
  });
});
