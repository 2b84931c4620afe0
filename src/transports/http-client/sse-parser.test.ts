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
