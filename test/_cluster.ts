// Several `toolwire serve --http --redis URL` processes on one Redis (a cluster), and a small round-robin
// HTTP proxy in front of them that sends each request to the next instance, streaming both ways.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

export interface RoundRobin {
  url: string;
  /** Which instance (index) each request went to, in order. */
  readonly served: number[];
  close(): Promise<void>;
}

/** A proxy that sends each request to the next of `urls` (same path), in turn. */
export async function roundRobin(urls: readonly string[]): Promise<RoundRobin> {
  const targets = urls.map((url) => new URL(url));
  const served: number[] = [];
  let next = 0;
  const server: HttpServer = createServer((incoming, outgoing) => {
    const index = next++ % targets.length;
    served.push(index);
    const target = targets[index]!;
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502).end();
      else outgoing.destroy();
    });
    outgoing.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${targets[0]!.pathname}`,
    served,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
