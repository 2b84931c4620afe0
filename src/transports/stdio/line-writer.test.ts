import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LocalErrorCode } from '../../protocol/errors.js';
import { LineWriter } from './line-writer.js';

describe('LineWriter', () => {
  it('writes lines in order across drains', async () => {
    const stream = new PassThrough({ highWaterMark: 8 });
    const writer = new LineWriter(stream);
    const writes = Array.from({ length: 20 }, (_, i) => writer.write(`line ${i}\n`));
    await new Promise((resolve) => setImmediate(resolve));
    // At most one line past the high-water mark is buffered; the rest wait for drain.
    expect(stream.writableLength).toBeLessThan(8 + 8);
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await Promise.all(writes);
    expect(text.trim().split('\n')).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i}`));
  });

  it('writes the lines of one tick as one chunk, in order', async () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        chunks.push(chunk.toString());
        callback();
      },
    });
    const writer = new LineWriter(stream);
    await Promise.all([writer.write('a\n'), writer.write('b\n'), writer.write('c\n')]);
    await writer.write('d\n');
    expect(chunks).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('writes the pending lines when closed in the same tick', async () => {
    const stream = new PassThrough();
    const writer = new LineWriter(stream);
    const written = writer.write('last\n');
    writer.close(new Error('closed'));
    await written;
    expect(stream.read()?.toString()).toBe('last\n');
  });

  it('rejects with SEND_FAILED when the stream fails the write', async () => {
    const stream = new Writable({
      highWaterMark: 1,
      write: (_chunk, _encoding, callback) => callback(new Error('EPIPE')),
    });
    stream.on('error', () => {});
    const writer = new LineWriter(stream);
    await expect(writer.write('x\n')).rejects.toMatchObject({
      name: 'TransportError',
      code: LocalErrorCode.SendFailed,
    });
  });

  it('rejects every write after close with the close error', async () => {
    const writer = new LineWriter(new PassThrough());
    const error = new Error('closed');
    writer.close(error);
    await expect(writer.write('x\n')).rejects.toBe(error);
  });

  it('counts what waits for the reader, reports reaching a limit, and relief at half of it', async () => {
    const stream = new PassThrough({ highWaterMark: 16 });
    const pressure: boolean[] = [];
    const writer = new LineWriter(stream, undefined, {
      maxBytes: 1000,
      maxMessages: 10,
      onPressure: (full) => pressure.push(full),
    });
    for (let i = 0; i < 10; i++) void writer.write(`${'x'.repeat(9)}\n`);
    expect([writer.queuedMessages, writer.queuedBytes]).toEqual([10, 100]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(pressure).toEqual([true]); // ten lines queued: the message limit
    const flushed = writer.flushed();
    stream.resume(); // the reader catches up
    await flushed;
    expect(pressure).toEqual([true, false]);
    expect([writer.queuedMessages, writer.queuedBytes]).toEqual([0, 0]);
  });

  it('still writes what was queued after end, and refuses new lines', async () => {
    const stream = new PassThrough({ highWaterMark: 4 });
    const writer = new LineWriter(stream);
    const writes = [writer.write('one\n'), writer.write('two\n')];
    await new Promise((resolve) => setImmediate(resolve)); // over the high-water mark: the next wait
    writes.push(writer.write('three\n'));
    await new Promise((resolve) => setImmediate(resolve));
    const late = writer.write('four\n'); // still in this tick's batch when the writer ends
    const error = new Error('ended');
    writer.end(error);
    await expect(writer.write('five\n')).rejects.toBe(error);
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await Promise.all([...writes, late, writer.flushed()]);
    expect(text).toBe('one\ntwo\nthree\nfour\n');
  });
});
