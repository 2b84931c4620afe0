import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { ErrorCode, LocalErrorCode, ProtocolError } from '../../protocol/errors.js';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { TransportError } from '../transport-error.js';
import { StdioServerTransport } from './stdio-server-transport.js';

function setup(
  options: { highWaterMark?: number; maxMessageSize?: number; onStdinClosed?: () => void } = {},
) {
  const stdin = new PassThrough();
  // Both sides small: a PassThrough with a large readable buffer would drain at once.
  const stdout = new PassThrough(
    options.highWaterMark === undefined ? {} : { highWaterMark: options.highWaterMark },
  );
  const transport = new StdioServerTransport({
    stdin,
    stdout,
    ...(options.maxMessageSize === undefined ? {} : { maxMessageSize: options.maxMessageSize }),
    ...(options.onStdinClosed === undefined ? {} : { onStdinClosed: options.onStdinClosed }),
  });
  const messages: unknown[] = [];
  const errors: Error[] = [];
  const onclose = vi.fn();
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error);
  transport.onclose = onclose;
  return { stdin, stdout, transport, messages, errors, onclose };
}

function readLines(stream: PassThrough): string[] {
  const text = (stream.read() as Buffer | null)?.toString('utf8') ?? '';
  return text.split('\n').filter((line) => line !== '');
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('StdioServerTransport', () => {
  it('delivers each stdin line as a message and writes each sent message as one stdout line', async () => {
    const { stdin, stdout, transport, messages } = setup();
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0",');
    stdin.write('"method":"notifications/initialized"}\n');
    await tick();
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(readLines(stdout)).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}']);
  });

  it('reports a non-JSON line as a ParseError ProtocolError and still delivers the next message', async () => {
    const { stdin, transport, messages, errors } = setup();
    await transport.start();
    stdin.write('{oops\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await tick();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ProtocolError);
    expect((errors[0] as ProtocolError).code).toBe(ErrorCode.ParseError);
    expect(errors[0]?.message).toMatch(/^Parse error: /);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('reports a too-large line as MESSAGE_TOO_LARGE and keeps reading', async () => {
    const { stdin, transport, messages, errors } = setup({ maxMessageSize: 64 });
    await transport.start();
    stdin.write(JSON.stringify({ data: 'z'.repeat(200) }) + '\n{"small":1}\n');
    await tick();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(TransportError);
    expect((errors[0] as TransportError).code).toBe(LocalErrorCode.MessageTooLarge);
    expect(messages).toEqual([{ small: 1 }]);
  });

  it('waits for drain under backpressure and keeps messages in order', async () => {
    const { stdout, transport } = setup({ highWaterMark: 16 });
    await transport.start();
    const write = vi.spyOn(stdout, 'write');
    const sends = Array.from({ length: 50 }, (_, i) =>
      transport.send({ jsonrpc: '2.0', method: 'n', params: { i } } satisfies JsonRpcMessage),
    );
    await tick();
    // The first line overflows the 16-byte buffer; nothing more is written until it drains.
    expect(write).toHaveBeenCalledTimes(1);
    const lines: string[] = [];
    stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n')));
    await Promise.all(sends);
    await tick();
    const received = lines
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { params: { i: number } }).params.i);
    expect(received).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('closes once when stdin ends, and calls onStdinClosed after onclose', async () => {
    const order: string[] = [];
    const { stdin, transport, onclose } = setup({ onStdinClosed: () => order.push('onStdinClosed') });
    onclose.mockImplementation(() => order.push('onclose'));
    await transport.start();
    stdin.end('{"last":true}');
    await tick();
    stdin.destroy();
    await tick();
    await transport.close();
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(order).toEqual(['onclose', 'onStdinClosed']);
  });

  it('delivers a final unterminated line before closing on stdin end', async () => {
    const { stdin, transport, messages } = setup();
    await transport.start();
    stdin.end('{"last":true}');
    await tick();
    expect(messages).toEqual([{ last: true }]);
  });

  it('close() stops reading, fires onclose once, and does not call onStdinClosed', async () => {
    const onStdinClosed = vi.fn();
    const { stdin, transport, messages, onclose } = setup({ onStdinClosed });
    await transport.start();
    await transport.close();
    await transport.close();
    expect(stdin.listenerCount('data')).toBe(0);
    expect(stdin.isPaused()).toBe(true);
    stdin.write('{"late":true}\n');
    stdin.end();
    await tick();
    expect(messages).toEqual([]);
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(onStdinClosed).not.toHaveBeenCalled();
  });

  it('rejects send after close with CONNECTION_CLOSED and before start with NOT_CONNECTED', async () => {
    const { transport } = setup();
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toMatchObject({
      name: 'TransportError',
      code: LocalErrorCode.NotConnected,
    });
    await transport.start();
    await transport.close();
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toMatchObject({
      name: 'TransportError',
      code: LocalErrorCode.ConnectionClosed,
    });
  });

  it('still writes what was sent before close, waiting for drain, and refuses later sends', async () => {
    const { transport, stdout } = setup({ highWaterMark: 4 });
    await transport.start();
    const first = transport.send({ jsonrpc: '2.0', method: 'first' });
    await tick(); // over the high-water mark: the next line waits for drain
    const second = transport.send({ jsonrpc: '2.0', method: 'second' });
    await tick();
    await transport.close();
    await expect(transport.send({ jsonrpc: '2.0', method: 'third' })).rejects.toMatchObject({
      code: LocalErrorCode.ConnectionClosed,
    });
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await Promise.all([first, second, transport.flushed()]);
    expect(text).toBe('{"jsonrpc":"2.0","method":"first"}\n{"jsonrpc":"2.0","method":"second"}\n');
  });

  it('tells the engine when stdin ends (onend) and closes only when told to, then reports stdin closed', async () => {
    const onStdinClosed = vi.fn();
    const { stdin, transport, messages, onclose } = setup({ onStdinClosed });
    const onend = vi.fn();
    transport.onend = onend;
    await transport.start();
    stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    await tick();
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect([onend.mock.calls.length, onclose.mock.calls.length, transport.inputEnded]).toEqual([1, 0, true]);
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} }); // the answer still goes out
    await transport.close();
    expect([onclose.mock.calls.length, onStdinClosed.mock.calls.length]).toEqual([1, 1]);
  });
});
