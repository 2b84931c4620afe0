/**
 * A person as a caller of the gateway: the console's "Try a tool" and resource reads go through the
 * gateway's own server like a model's requests (the same policy, approvals, audit and call log), over an
 * in-memory connection whose principal is the person. The connection may carry a session id of the
 * console's choosing, so that the console can tell its call among the calls the event stream reports.
 * @module
 */
import { Client } from '../client/index.js';
import type { Transport } from '../index.js';
import type { Server } from '../server/index.js';
import { createLinkedPair } from '../transports/in-memory.js';

/** The server's end of the in-memory pair, with a session id. */
class NamedTransport implements Transport {
  readonly #inner: Transport;
  readonly sessionId: string | undefined;

  constructor(inner: Transport, sessionId: string | undefined) {
    this.#inner = inner;
    this.sessionId = sessionId;
  }

  set onmessage(listener: Transport['onmessage']) {
    this.#inner.onmessage = listener;
  }
  get onmessage(): Transport['onmessage'] {
    return this.#inner.onmessage;
  }
  set onerror(listener: Transport['onerror']) {
    this.#inner.onerror = listener;
  }
  get onerror(): Transport['onerror'] {
    return this.#inner.onerror;
  }
  set onclose(listener: Transport['onclose']) {
    this.#inner.onclose = listener;
  }
  get onclose(): Transport['onclose'] {
    return this.#inner.onclose;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }
  send(...args: Parameters<Transport['send']>): Promise<void> {
    return this.#inner.send(...args);
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}

/**
 * Runs `work` with a client connected to `server` as `subject` (role `console`), then closes it.
 * `sessionId` names the connection in the calls it makes (`caller.sessionId`).
 */
export async function asPerson<T>(
  server: Server,
  subject: string,
  sessionId: string | undefined,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const [clientEnd, serverEnd] = createLinkedPair();
  await server.connect(new NamedTransport(serverEnd, sessionId), {
    principal: { subject, scopes: [], roles: ['console'] },
  });
  const client = new Client(
    { name: 'toolwire-console', version: '1.0.0' },
    { protocolVersion: '2025-11-25' },
  );
  try {
    await client.connect(clientEnd);
    return await work(client);
  } finally {
    await client.close().catch(() => undefined);
  }
}
