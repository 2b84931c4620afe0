/**
 * The stdio transport's shutdown sequence for a server process (MCP `basic/transports/stdio`, Shutdown):
 * close its stdin, wait for it to exit, SIGTERM, wait again, SIGKILL.
 * @module
 */
import type { ChildProcess } from 'node:child_process';

/**
 * Stops `child`, whose exit `exited` resolves on: ends its stdin, waits up to `timeoutMs` for it to exit,
 * then sends SIGTERM and waits as long again, then SIGKILL. Resolves once it has exited.
 */
export async function stopChild(
  child: ChildProcess,
  exited: Promise<void>,
  timeoutMs: number,
): Promise<void> {
  child.stdin?.end();
  if (await exitsWithin(exited, timeoutMs)) return;
  child.kill('SIGTERM');
  if (await exitsWithin(exited, timeoutMs)) return;
  child.kill('SIGKILL');
  await exited;
}

/** True once `exited` resolved, false when `ms` passed first. */
function exitsWithin(exited: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([exited.then(() => true), timeout]).finally(() => clearTimeout(timer));
}
