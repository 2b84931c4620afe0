// A port on 127.0.0.1 where nothing listens: what an unreachable server looks like to a client (a connection
// refused at once), for the tests of how the CLI and the gateway report one.
import { createServer } from 'node:net';

/** A port taken from the system and let go: nothing listens there (until something else takes it). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
