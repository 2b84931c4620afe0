/**
 * Messages between the processes that share sessions (a `SessionBus`): what one process produces for a
 * session whose stream another process holds, the client's answers to a request another process sent,
 * and news every process must hear (a session ended, a session's record changed). Delivery is at most
 * once and only to processes listening at the time, as Redis pub/sub gives it: a message for a session
 * nobody listens to is dropped, as it would be with no `GET` stream open in one process.
 * @module
 */
import type { JsonObject } from '../protocol/jsonrpc.js';

/**
 * Where a bus message was sent: to a session's listeners, to one process, or to all of them. A message on
 * a session's channel heard after this process stopped listening to it (its unsubscribe still on its way)
 * is `released`: the session is no longer here, and only an answer saying so fits (the process that sent
 * it would otherwise wait for an answer that never comes).
 */
export type BusAddress =
  { to: 'session'; sessionId: string; released?: true } | { to: 'instance' } | { to: 'all'; from: string };

export interface SessionBus {
  /** This process's name on the bus (unique per process, random). */
  readonly instanceId: string;
  /** Called with every message that reaches this process. */
  onmessage?: (payload: JsonObject, address: BusAddress) => void;
  /** Sends to the processes listening to `sessionId`; resolves with how many got it. */
  toSession(sessionId: string, payload: JsonObject): Promise<number>;
  /** Sends to one process; resolves with whether it was listening. */
  toInstance(instanceId: string, payload: JsonObject): Promise<boolean>;
  /** Sends to every other process. */
  toAll(payload: JsonObject): Promise<void>;
  /** Starts hearing what is sent to `sessionId` (resolves once the subscription is in place). */
  listen(sessionId: string): Promise<void>;
  /** Stops hearing `sessionId`. */
  unlisten(sessionId: string): Promise<void>;
  close(): Promise<void>;
}
