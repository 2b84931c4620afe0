// Several `toolwire serve --http --redis URL` processes on one Redis (a cluster); test/_round-robin.ts puts
// a round-robin balancer in front of them.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BIN, REPO } from './_cli.js';

export const CLUSTER_FIXTURE = 'test/fixtures/cluster-server.mjs';

export interface Instance {
  url: string;
  child: ChildProcess;
  /** What the process wrote on stderr so far. */
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `toolwire serve MODULE --http --port 0 --redis URL`; resolves with its URL once it listens. */
export async function startInstance(redisUrl: string, module = CLUSTER_FIXTURE): Promise<Instance> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', module, '--http', '--port', '0', '--redis', redisUrl],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await Promise.race([
    new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve)),
    exited.then((code) => {
      throw new Error(`toolwire serve exited (${code}) before listening: ${stderr}`);
    }),
  ]);
  return { url, child, stderr: () => stderr, exited };
}

/** Stops an instance (SIGTERM, or SIGKILL for a crash) and waits for it to exit. */
export async function stopInstance(instance: Instance, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  instance.child.kill(signal);
  await instance.exited;
}
