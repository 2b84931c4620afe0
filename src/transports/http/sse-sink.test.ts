import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QueuedOutput } from '../queued-output.js';
import { SseSink } from './sse-sink.js';
import { utf8Length } from './utf8-length.js';

const encoder = new TextEncoder();

describe('utf8Length', () => {
  it('is the length of the UTF-8 encoding, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(utf8Length(text)).toBe(encoder.encode(text).byteLength);
      }),
    );
    expect(utf8Length('a\u00e9\u4e2d\ud83d\ude00\ud800x\udc00')).toBe(1 + 2 + 3 + 4 + 3 + 1 + 3);
  });
});

describe('SseSink', () => {
  it('counts what it holds unread in UTF-8 bytes, and reads it back as written', async () => {
    const shared = new QueuedOutput();
    const sink = new SseSink(0, shared);
    sink.event({ data: '"h\u00e9llo \ud83d\ude00"' });
    sink.write(': note\n\n');
    const expected = 'data: "h\u00e9llo \ud83d\ude00"\n\n: note\n\n';
    expect(sink.queuedBytes).toBe(encoder.encode(expected).byteLength);
    expect(shared.bytes).toBe(sink.queuedBytes);
    expect(shared.messages).toBe(2);
    sink.close();
    expect(await new Response(sink.body).text()).toBe(expected);
    expect(sink.queuedBytes).toBe(0);
    expect(shared.bytes).toBe(0);
    expect(shared.messages).toBe(0);
  });
});
