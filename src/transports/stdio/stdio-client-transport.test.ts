import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode, LocalErrorCode, ProtocolError } from '../../protocol/errors.js';
import { TransportError } from '../transport-error.js';
import { StdioClientTransport, type StdioClientTransportOptions } from './stdio-client-transport.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../../test/fixtures/${name}`, import.meta.url));

const transports: StdioClientTransport[] = [];

function connect(script: string, options: Partial<StdioClientTransportOptions> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixture(script)],
    stderr: 'ignore',
    ...options,
  });
  transports.push(transport);
  const messages: unknown[] = [];
  const errors: Error[] = [];
  const onclose = vi.fn();
  let waiters: Array<() => void> = [];
  transport.onmessage = (message) => {
    messages.push(message);
    for (const wake of waiters) wake();
    waiters = [];
  };
  transport.onerror = (error) => errors.push(error);
  transport.onclose = onclose;
  /** Resolves once `count` messages have arrived. */
  const received = async (count: number): Promise<unknown[]> => {
    while (messages.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return messages;
  };
  return { transport, messages, errors, onclose, received };
}

afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
});

describe('StdioClientTransport', () => {
  it('spawns the server and exchanges messages with it', async () => {
    const { transport, received } = connect('echo-server.mjs');
    await transport.start();
    expect(transport.pid).toBeTypeOf('number');
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'hello', params: { text: 'héllo 🌍' } });
    await transport.send([
      { jsonrpc: '2.0', id: 2, method: 'a' },
      { jsonrpc: '2.0', id: 3, method: 'b' },
    ]);
    await transport.send({ jsonrpc: '2.0', id: 4, method: 'c' });
    expect(await received(2)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { echo: { text: 'héllo 🌍' } } },
      { jsonrpc: '2.0', id: 4, result: { echo: {} } },
    ]);
  });

  it('rejects start with SPAWN_FAILED and the OS error as cause for a missing command', async () => {
    const transport = new StdioClientTransport({ command: 'toolwire-no-such-command-7f3a' });
    const error: unknown = await transport.start().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).code).toBe(LocalErrorCode.SpawnFailed);
    expect(((error as TransportError).cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toMatchObject({
      code: LocalErrorCode.NotConnected,
    });
    await transport.close();
  });

  it('merges env over the inherited environment and honours cwd', async () => {
    const cwd = realpathSync(tmpdir());
    const { transport, received } = connect('echo-server.mjs', { env: { TOOLWIRE_TEST_VAR: 'hello' }, cwd });
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'env', params: { name: 'TOOLWIRE_TEST_VAR' } });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'env', params: { name: 'PATH' } });
    await transport.send({ jsonrpc: '2.0', id: 3, method: 'cwd' });
    const [custom, path, dir] = await received(3);
    expect(custom).toMatchObject({ result: { value: 'hello' } });
    expect(path).toMatchObject({ result: { value: process.env.PATH } });
    expect(realpathSync((dir as { result: { value: string } }).result.value)).toBe(cwd);
  });

  it('exposes the child’s stderr when stderr is "pipe"', async () => {
    const { transport } = connect('echo-server.mjs', { stderr: 'pipe' });
    const stderr = transport.stderr;
    expect(stderr).not.toBeNull();
    let text = '';
    stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await transport.start();
    await vi.waitFor(() => expect(text).toContain('echo-server ready'), { timeout: 10_000 });
  });

  it('reports non-JSON and too-large lines from the server and keeps the connection', async () => {
    const { transport, errors, received } = connect('echo-server.mjs', { maxMessageSize: 1024 });
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'garbage' });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'big', params: { size: 5000 } });
    expect(await received(2)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { echo: {} } },
      { jsonrpc: '2.0', id: 2, result: { echo: { size: 5000 } } },
    ]);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBeInstanceOf(ProtocolError);
    expect((errors[0] as ProtocolError).code).toBe(ErrorCode.ParseError);
    expect(errors[1]).toBeInstanceOf(TransportError);
    expect((errors[1] as TransportError).code).toBe(LocalErrorCode.MessageTooLarge);
  });

  it('reports an unexpected exit with its code, then closes once', async () => {
    const { transport, errors, onclose } = connect('echo-server.mjs');
    await transport.start();
    await transport.send({ jsonrpc: '2.0', method: 'exit', params: { code: 3 } });
    await vi.waitFor(() => expect(onclose).toHaveBeenCalledTimes(1), { timeout: 10_000 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(TransportError);
    expect((errors[0] as TransportError).code).toBe(LocalErrorCode.ConnectionClosed);
    expect(errors[0]?.message).toContain('exit code 3');
    expect(transport.exitStatus).toEqual({ code: 3, signal: null });
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toMatchObject({
      code: LocalErrorCode.ConnectionClosed,
    });
    await transport.close();
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  // A client held back past the stream-close grace between the end of the child's stdout and its exit (a
  // busy machine) reported the exit as a server that closed its stdout and ran on.
  it.runIf(existsSync('/proc/self/stat'))(
    'reports an exit as an exit when held back past the grace between the end of stdout and the exit',
    async () => {
      const { transport, errors, onclose } = connect('echo-server.mjs');
      await transport.start();
      const pid = transport.pid!;
      // The end of stdout seen (the transport's grace timer set first), the process is held until the child
      // is a zombie, then 150 ms more: both the timer and the exit are due when the loop goes on.
      const child = (transport as unknown as { child: ChildProcess }).child;
      child.stdout?.once('end', () => {
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline && !isZombie(pid));
        const held = Date.now() + 150;
        while (Date.now() < held);
      });
      await transport.send({ jsonrpc: '2.0', method: 'close-then-exit', params: { code: 3, afterMs: 20 } });
      await vi.waitFor(() => expect(onclose).toHaveBeenCalledTimes(1), { timeout: 10_000 });
      expect(errors.map((error) => error.message)).toEqual([
        'The server process exited unexpectedly (exit code 3)',
      ]);
      expect(transport.exitStatus).toEqual({ code: 3, signal: null });
    },
  );

  it('restart() from onclose starts the server again: same options, stderr goes on, onclose fires again', async () => {
    const { transport, errors, onclose, received } = connect('echo-server.mjs', {
      stderr: 'pipe',
      env: { RESTART_MARK: 'kept' },
    });
    let text = '';
    let ended = false;
    transport.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    transport.stderr?.on('end', () => (ended = true));
    let restarting: Promise<void> | undefined;
    onclose.mockImplementationOnce(() => (restarting = transport.restart()));
    await expect(transport.restart()).rejects.toMatchObject({ code: LocalErrorCode.AlreadyConnected });
    await transport.start();
    const first = transport.pid;
    await transport.send({ jsonrpc: '2.0', method: 'exit', params: { code: 1 } });
    await vi.waitFor(() => expect(restarting).toBeDefined(), { timeout: 10_000 });
    await restarting;
    expect(transport.pid).not.toBe(first);
    expect(transport.exitStatus).toBeUndefined();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'env', params: { name: 'RESTART_MARK' } });
    expect(await received(1)).toEqual([{ jsonrpc: '2.0', id: 1, result: { value: 'kept' } }]);
    await vi.waitFor(() => expect(text.match(/echo-server ready/g)).toHaveLength(2), { timeout: 10_000 });
    expect(errors[0]?.message).toContain('exit code 1');
    await transport.send({ jsonrpc: '2.0', method: 'exit', params: { code: 4 } });
    await vi.waitFor(() => expect(onclose).toHaveBeenCalledTimes(2), { timeout: 10_000 });
    expect(transport.exitStatus).toEqual({ code: 4, signal: null });
    await vi.waitFor(() => expect(ended).toBe(true), { timeout: 10_000 });
  });

  it('restart() is refused after close()', async () => {
    const { transport } = connect('echo-server.mjs');
    await transport.start();
    await transport.close();
    await expect(transport.restart()).rejects.toMatchObject({ code: LocalErrorCode.ConnectionClosed });
  });

  it('close() ends stdin and the server exits on its own, without signals', async () => {
    const { transport, errors, onclose, received } = connect('echo-server.mjs');
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await received(1);
    const closing = transport.close();
    expect(transport.close()).toBe(closing);
    await closing;
    expect(transport.exitStatus).toEqual({ code: 0, signal: null });
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(errors).toEqual([]);
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toMatchObject({
      name: 'TransportError',
      code: LocalErrorCode.ConnectionClosed,
    });
  });

  it('close() sends SIGTERM to a server that ignores its stdin closing', async () => {
    const { transport, onclose, received } = connect('ignores-stdin-close.mjs', { shutdownTimeoutMs: 200 });
    await transport.start();
    await received(1);
    const started = Date.now();
    await transport.close();
    const elapsed = Date.now() - started;
    expect(transport.exitStatus).toEqual({ code: null, signal: 'SIGTERM' });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2000); // SIGTERM worked: no SIGKILL step
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it('close() sends SIGKILL to a server that also ignores SIGTERM', async () => {
    const { transport, onclose, received } = connect('ignores-sigterm.mjs', { shutdownTimeoutMs: 200 });
    await transport.start();
    await received(1);
    const started = Date.now();
    await transport.close();
    const elapsed = Date.now() - started;
    expect(transport.exitStatus).toEqual({ code: null, signal: 'SIGKILL' });
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(2000);
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it('close() before start() fires onclose and resolves', async () => {
    const transport = new StdioClientTransport({ command: process.execPath });
    const onclose = vi.fn();
    transport.onclose = onclose;
    await transport.close();
    expect(onclose).toHaveBeenCalledTimes(1);
    await expect(transport.start()).rejects.toMatchObject({ code: LocalErrorCode.AlreadyConnected });
  });
});

/** Whether the process has exited and not been reaped yet (Linux: its state in /proc is Z). */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}
