import { describe, expect, it, vi } from 'vitest';
import { ErrorCode, LocalErrorCode, ProtocolError } from '../../protocol/errors.js';
import { TransportError } from '../transport-error.js';
import { LineDecoder, serializeMessage, type DecodedItem } from './line-decoder.js';

const values = (items: DecodedItem[]): unknown[] =>
  items.map((item) => (item.kind === 'message' ? item.value : item.kind));

/** The `details` of a `too-large` item (throws for any other item). */
function tooLargeDetails(item: DecodedItem | undefined): unknown {
  if (item?.kind !== 'too-large') throw new Error(`expected too-large, got ${String(item?.kind)}`);
  expect(item.error.code).toBe(LocalErrorCode.MessageTooLarge);
  return item.error.details;
}

/** Feeds `text` in chunks of `size` bytes; returns every item, and the most bytes held between chunks. */
function feed(decoder: LineDecoder, text: string, size: number): { items: DecodedItem[]; held: number } {
  const bytes = Buffer.from(text, 'utf8');
  const items: DecodedItem[] = [];
  let held = 0;
  for (let at = 0; at < bytes.length; at += size) {
    items.push(...decoder.push(bytes.subarray(at, at + size)));
    held = Math.max(held, decoder.bufferedBytes);
  }
  return { items, held };
}

describe('LineDecoder', () => {
  it('returns nothing until a line is complete, then the parsed value', () => {
    const decoder = new LineDecoder();
    expect(decoder.push('{"jsonrpc":"2.0",')).toEqual([]);
    expect(decoder.push('"method":"ping"')).toEqual([]);
    expect(values(decoder.push('}\n'))).toEqual([{ jsonrpc: '2.0', method: 'ping' }]);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('refuses a line that cannot start JSON without JSON.parse, in the words JSON.parse would use', () => {
    const lines = [
      'y',
      'Hello! I print text',
      'Hello! I print text, not MCP',
      'nope',
      `fals${'x'.repeat(30)}`,
      'not json',
      'tru',
      'falsy',
      '\u0002abc',
      '#!x',
      'é',
    ];
    const expected = lines.map((line) => {
      try {
        JSON.parse(line);
        return 'parsed';
      } catch (error) {
        return `Parse error: ${(error as Error).message}`;
      }
    });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const items = new LineDecoder().push(lines.join('\n') + '\n');
      expect(parse).not.toHaveBeenCalled(); // each of those costs a SyntaxError (≈20 µs a line)
      expect(items.map((item) => (item.kind === 'parse-error' ? item.error.message : item.kind))).toEqual(
        expected,
      );
    } finally {
      parse.mockRestore();
    }
    // What may start JSON is still JSON.parse's to judge: a value, or a literal followed by more.
    expect(values(new LineDecoder().push('1\n"x"\nnull\n-2\n [3]\n'))).toEqual([1, 'x', null, -2, [3]]);
    expect(new LineDecoder().push('null x\n')[0]).toMatchObject({
      kind: 'parse-error',
      error: { message: 'Parse error: Unexpected non-whitespace character after JSON at position 5' },
    });
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
      // Up to the limit, the line itself; past it, only the fixed window kept of its end.
      expect(decoder.bufferedBytes).toBeLessThanOrEqual(512);
    }
    items.push(...decoder.push('"}\n{"next":1}\n'));
    expect(items.map((item) => item.kind)).toEqual(['too-large', 'message']);
    const [tooLarge, next] = items;
    if (tooLarge?.kind !== 'too-large') throw new Error('expected too-large');
    expect(tooLarge.error).toBeInstanceOf(TransportError);
    expect(tooLarge.error.code).toBe(LocalErrorCode.MessageTooLarge);
    expect(next).toEqual({ kind: 'message', value: { next: 1 } });
  });

  it('reports a line over the limit whose id the peer cannot read with no id, and a kind where it shows', () => {
    const line = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'n'.repeat(200)}"}}`;
    const [tooLarge] = new LineDecoder({ maxMessageSize: 100 }).push(`${line}\n`);
    expect(tooLargeDetails(tooLarge)).toEqual({
      maxMessageSize: 100,
      receivedBytes: line.length,
      kind: 'request',
    });
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

describe('LineDecoder, a line over the limit', () => {
  const big = (n: number) => 'x'.repeat(n);

  it('names the id and the kind at once when the line starts with them, before the line ends', () => {
    const decoder = new LineDecoder({ maxMessageSize: 100 });
    const start = `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"${big(200)}`;
    const items = decoder.push(start);
    expect(items).toHaveLength(1);
    expect(tooLargeDetails(items[0])).toEqual({
      maxMessageSize: 100,
      receivedBytes: start.length,
      id: 7,
      kind: 'answer',
    });
    // Once per line: the rest of it is dropped, and the next line decodes.
    expect(decoder.push(big(5000))).toEqual([]);
    expect(values(decoder.push(`"}]}}\n{"next":1}\n`))).toEqual([{ next: 1 }]);
    expect(decoder.end()).toEqual([]);
  });

  it('names an id written last when the line ends, with the kind its start showed', () => {
    const decoder = new LineDecoder({ maxMessageSize: 100 });
    expect(decoder.push(`{"result":{"content":[{"type":"text","text":"${big(300)}"}]},`)).toEqual([]);
    const line = `{"result":{"content":[{"type":"text","text":"${big(300)}"}]},"jsonrpc":"2.0","id":42}`;
    const [tooLarge, next] = decoder.push(`"jsonrpc":"2.0","id":42}\n[1]\n`);
    expect(tooLargeDetails(tooLarge)).toEqual({
      maxMessageSize: 100,
      receivedBytes: line.length,
      id: 42,
      kind: 'answer',
    });
    expect(next).toEqual({ kind: 'message', value: [1] });
  });

  it('reads the last member strictly: whitespace, a CRLF, numbers and escaped strings as JSON has them', () => {
    // Past the 4 KiB start that is read, only the line's end can name it.
    const idOf = (end: string) =>
      (
        tooLargeDetails(
          new LineDecoder({ maxMessageSize: 50 }).push(
            `{"method":"tools/call","params":"${big(5000)}"${end}\n`,
          )[0],
        ) as { id?: unknown }
      ).id;
    expect(idOf(',"id":-12.5e3}')).toBe(-12500);
    expect(idOf(' , "id" :\t0 }  \r')).toBe(0);
    expect(idOf(',"id":"a\\"b\\\\c\\u00e9\\n"}')).toBe('a"b\\c\u00e9\n');
    expect(idOf(',"id":"世界"}')).toBe('世界');
    for (const end of [
      ',"id":01}', // no leading zeros in JSON
      ',"id":1.}',
      ',"id":"a\\x"}', // not a JSON escape
      ',"id":"a"b"}',
      ',"id":"a\u0001"}', // a raw control character
      ',"id":true}',
      ',"id":null}',
      ',"id":[1]}',
      ',"id":1}}', // the brace of a nested object: not the top level
      ',"id":1',
      ',"id":1} x',
      ',"i\\u0064":1}', // an escaped key is not read
    ]) {
      expect(idOf(end), end).toBeUndefined();
    }
  });

  it('does not take the id of an object nested at the line’s end, nor one inside a string', () => {
    // The ids below are past the 4 KiB start that is read: only the end is read for them.
    const decoder = new LineDecoder({ maxMessageSize: 100 });
    const lines = [
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t","arguments":{"v":"${big(5000)}","id":5}}}`,
      `{"jsonrpc":"2.0","method":"x","params":{"v":"${big(5000)}"},"p":{"a":1,"id":5}}`,
      `{"jsonrpc":"2.0","method":"x","params":{"v":"${big(5000)},\\"id\\":5}"}}`,
    ];
    const items = decoder.push(lines.map((line) => `${line}\n`).join(''));
    expect(items.map((item) => tooLargeDetails(item))).toEqual(
      lines.map((line) => ({ maxMessageSize: 100, receivedBytes: line.length, kind: 'request' })),
    );
  });

  it('names a request with its id, first (in the start) or last (at the end)', () => {
    const first = `{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":{"v":"${big(5000)}"}}`;
    const last = `{"method":"tools/call","params":{"v":"${big(5000)}"},"jsonrpc":"2.0","id":"req-2"}`;
    const items = new LineDecoder({ maxMessageSize: 100 }).push(`${first}\n${last}\n`);
    expect(items.map((item) => tooLargeDetails(item))).toMatchObject([
      { id: 'req-1', kind: 'request' },
      { id: 'req-2', kind: 'request' },
    ]);
  });

  it('reads a start split across many chunks, and a number cut at its end from the line’s end instead', () => {
    // One byte at a time: the start is held in pieces until the line goes over the limit.
    const line = `{"jsonrpc":"2.0","id":123456,"result":{"v":"${big(300)}"}}`;
    const { items } = feed(new LineDecoder({ maxMessageSize: 100 }), `${line}\n`, 1);
    expect(items.map((item) => tooLargeDetails(item))).toEqual([
      { maxMessageSize: 100, receivedBytes: 102, id: 123456, kind: 'answer' },
    ]);
    // Over the limit in the middle of the id: 1234 is not taken; the line's end names 123456789.
    const prefix = `{"result":{"v":"${big(60)}"},"id":1234`;
    const cut = new LineDecoder({ maxMessageSize: prefix.length - 2 });
    expect(cut.push(prefix)).toEqual([]);
    expect(tooLargeDetails(cut.push('56789}\n')[0])).toMatchObject({ id: 123456789, kind: 'answer' });
  });

  it('holds a few hundred bytes while it discards a 32 MiB line fed in small chunks, and reports it once', () => {
    const decoder = new LineDecoder({ maxMessageSize: 64 * 1024 });
    const chunk = Buffer.alloc(4093, 'y'); // not a divisor of any window size
    const items: DecodedItem[] = [...decoder.push('{"result":{"text":"')];
    let held = 0;
    for (let sent = 0; sent < 32 << 20; sent += chunk.length) {
      items.push(...decoder.push(chunk));
      if (sent > 128 * 1024) held = Math.max(held, decoder.bufferedBytes);
    }
    expect(items).toEqual([]);
    expect(held).toBeLessThanOrEqual(512);
    // Its end, in 3-byte pieces, names it.
    const { items: ended, held: heldAtEnd } = feed(decoder, '"}, "jsonrpc": "2.0", "id": 99}\r\n', 3);
    expect(heldAtEnd).toBeLessThanOrEqual(512);
    expect(ended.map((item) => tooLargeDetails(item))).toMatchObject([{ id: 99, kind: 'answer' }]);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('keeps no more for a line that never ends, and reports it when the input ends', () => {
    const decoder = new LineDecoder({ maxMessageSize: 1000 });
    const { items, held } = feed(decoder, `{"jsonrpc":"2.0","method":"x","params":"${big(1 << 20)}`, 777);
    expect(items).toEqual([]);
    expect(held).toBeLessThanOrEqual(1001);
    expect(decoder.bufferedBytes).toBeLessThanOrEqual(512);
    expect(decoder.end().map((item) => tooLargeDetails(item))).toMatchObject([{ kind: 'request' }]);
    expect(decoder.end()).toEqual([]);
    // A line reported at once (its start names it) is not reported again at the end.
    const named = new LineDecoder({ maxMessageSize: 1000 });
    expect(feed(named, `{"id":1,"result":"${big(5000)}`, 777).items).toHaveLength(1);
    expect(named.end()).toEqual([]);
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
