import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from './sse-parser.js';

function parseAll(...chunks: string[]): { events: SseEvent[]; parser: SseParser } {
  const parser = new SseParser();
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  return { events, parser };
}

describe('SseParser', () => {
  it('dispatches a message event with its id at the blank line', () => {
    const { events, parser } = parseAll('id: 1\ndata: {"a":1}\n\n');
    expect(events).toEqual([{ type: 'message', data: '{"a":1}', lastEventId: '1' }]);
    expect(parser.lastEventId).toBe('1');
  });

  it('joins multi-line data with LF and honours the event type', () => {
    const { events } = parseAll('event: endpoint\ndata: first\ndata:second\ndata\n\n');
    expect(events).toEqual([{ type: 'endpoint', data: 'first\nsecond\n', lastEventId: undefined }]);
  });

  it('accepts CRLF, CR and LF line endings, also split across chunks', () => {
    const { events } = parseAll('data: a\r', '\ndata: b\r\r', 'data: c\n', '\r\n', 'data: d\r', '\r');
    expect(events.map((event) => event.data)).toEqual(['a\nb', 'c', 'd']);
  });

  it('does not count a CR split from its LF as two line endings', () => {
    const { events } = parseAll('data: x\r', '\n', '\r\n');
    expect(events.map((event) => event.data)).toEqual(['x']);
  });

  it('strips one leading byte order mark', () => {
    const { events } = parseAll('\uFEFFdata: hi\n\n');
    expect(events).toEqual([{ type: 'message', data: 'hi', lastEventId: undefined }]);
  });

  it('ignores comments, unknown fields, and removes only one space after the colon', () => {
    const { events } = parseAll(': keep-alive\nfoo: bar\ndata:  two spaces\n\n');
    expect(events.map((event) => event.data)).toEqual([' two spaces']);
  });

  it('keeps the id of an event without data (the priming event) and does not dispatch it', () => {
    const { events, parser } = parseAll('id: e1\nretry: 500\n\n');
    expect(events).toEqual([]);
    expect(parser.lastEventId).toBe('e1');
    expect(parser.retry).toBe(500);
  });

  it('dispatches an empty data field as a message with empty data', () => {
    const { events, parser } = parseAll('id: e1\ndata: \n\n');
    expect(events).toEqual([{ type: 'message', data: '', lastEventId: 'e1' }]);
    expect(parser.lastEventId).toBe('e1');
  });

  it('ignores a retry that is not all digits, and an id containing NULL', () => {
    const { parser } = parseAll('retry: 5s\nid: a\0b\ndata: x\n\n');
    expect(parser.retry).toBeUndefined();
    expect(parser.lastEventId).toBeUndefined();
  });

  it('keeps the last event id across events without ids, and an empty id resets it', () => {
    const { events } = parseAll('id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n');
    expect(events.map((event) => event.lastEventId)).toEqual(['7', '7', '']);
  });

  it('does not commit the id of an event cut off before its blank line', () => {
    const { events, parser } = parseAll('id: 1\ndata: a\n\nid: 2\ndata: b\n');
    expect(events.map((event) => event.data)).toEqual(['a']);
    expect(parser.lastEventId).toBe('1');
  });

  it('starts from the last event id of an earlier connection', () => {
    const parser = new SseParser({ lastEventId: 'e9' });
    expect(parser.push('data: x\n\n')).toEqual([{ type: 'message', data: 'x', lastEventId: 'e9' }]);
  });

  it('joins a line split across chunks, even inside the field name', () => {
    const { events } = parseAll('da', 'ta: hel', 'lo\n', '\n');
    expect(events.map((event) => event.data)).toEqual(['hello']);
  });
});

describe('SseParser with maxEventSize', () => {
  const parse = (max: number, ...chunks: string[]) => {
    const parser = new SseParser({ maxEventSize: max });
    return { parser, events: chunks.flatMap((chunk) => parser.push(chunk)) };
  };

  it('tells an event whose data passes the limit once, at once, and drops it', () => {
    const { events, parser } = parse(
      10,
      'id: 1\ndata: 12345\n',
      'data: 678901\n',
      'data: more\n',
      '\nid: 2\ndata: ok\n\n',
    );
    expect(events).toEqual([
      // told with the start of its data: what it held, and of the line that passed the limit
      { type: 'message', data: '', lastEventId: undefined, tooLarge: true, head: '12345\n678901' },
      { type: 'message', data: 'ok', lastEventId: '2' },
    ]);
    expect(parser.lastEventId).toBe('2');
  });

  it('takes an event of exactly the limit', () => {
    const { events } = parse(9, 'data: 1234\ndata: 1234\n\n');
    expect(events).toEqual([{ type: 'message', data: '1234\n1234', lastEventId: undefined }]);
  });

  it('drops a line longer than the limit as it arrives, without holding it', () => {
    const parser = new SseParser({ maxEventSize: 100 });
    const told = parser.push('event: x\ndata: ');
    expect(told).toEqual([]);
    const events: SseEvent[] = [];
    for (let i = 0; i < 1000; i++) events.push(...parser.push('y'.repeat(1000)));
    expect(events).toEqual([
      { type: 'x', data: '', lastEventId: undefined, tooLarge: true, head: 'y'.repeat(1000) },
    ]);
    // the id of the oversized event still counts once it ends: a reconnection does not replay it
    expect(parser.push('\nid: 7\n\ndata: after\n\n')).toEqual([
      { type: 'message', data: 'after', lastEventId: '7' },
    ]);
  });

  it('reads a long event split into many chunks in linear time', () => {
    const parser = new SseParser({ maxEventSize: 64 * 1024 * 1024 });
    const chunk = 'z'.repeat(64 * 1024);
    const started = performance.now();
    parser.push('data: ');
    for (let i = 0; i < 1024; i++) parser.push(chunk); // 64 MiB, one line
    const [event] = parser.push('\n\n');
    expect(event?.data.length).toBe(1024 * chunk.length);
    // The parser that copied what it held at each chunk took ≈10 s for half as much (quadratic: ≈40 s
    // here); reading each chunk once takes well under a second.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new SseParser({ maxEventSize: 0 })).toThrow(RangeError);
  });
});
