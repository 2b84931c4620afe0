// A plain-Node round-robin load balancer for tests (the one README's "Running many instances" shows): each
// request goes to the next target in turn, its body and response streamed through (server-sent events
// included). Loopback only.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobin {
  /** http://127.0.0.1:PORT */
  readonly base: string;
  /** How many requests each target got, in the order of `targets`. */
  readonly served: number[];
  close(): Promise<void>;
}

export async function roundRobin(targets: readonly string[]): Promise<RoundRobin> {
  const served = targets.map(() => 0);
  let next = 0;
  const server: Server = createServer((incoming, outgoing) => {
    const index = next++ % targets.length;
    served[index]!++;
    const target = new URL(incoming.url ?? '/', targets[index]);
    const upstream = request(
      target,
      // The Host as the client sent it, port included: the console's Origin is checked against it.
      { method: incoming.method, headers: incoming.headers },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
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
    base: `http://127.0.0.1:${port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
