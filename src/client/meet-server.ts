/**
 * Connecting a client: the transport is attached to the engine, the era is chosen (see `choose-era.ts`),
 * and the channel of that era is set up (see `EraChannel`).
 * @module
 */
import type { Peer } from '../protocol/engine/peer.js';
import { LATEST_REVISION } from '../protocol/revisions/index.js';
import type { Implementation } from '../protocol/types/lifecycle.js';
import { chooseEra, type ServerView } from './choose-era.js';
import { clientCapabilities } from './client-handlers.js';
import type { OwnHandlers } from './own-handlers.js';
import type { ClientOptions } from './client-options.js';
import type { EraChannel } from './era-channel.js';
import { HandshakeChannel } from './handshake-channel.js';
import { StatelessChannel } from './stateless/stateless-channel.js';
import { StatelessSender } from './stateless/stateless-sender.js';
import type { ProbeWindow } from './probe-window.js';

export interface MetServer {
  server: ServerView;
  /** The channel of the era chosen. */
  channel: EraChannel;
}

/** How `meetServer` meets the server, besides the client's options. */
export interface MeetingOptions {
  /** Bounds `initialize`. */
  timeout: number | undefined;
  /** A probe failure no fallback can fix (refused credentials): ends the meeting at once. */
  fatal: ((error: unknown) => boolean) | undefined;
  /** Set when the transport can start the server again (stdio, see ProbeWindow). */
  window: ProbeWindow | undefined;
  /** Tracks the handshake era's requests that brought handlers of their own. */
  own: OwnHandlers;
  /** Aborts when the connection closes (see `ClientConnection.closed`). */
  closed: AbortSignal;
}

/**
 * Meets the server over a connected `peer` as `options.protocolVersion` says (see `MeetingOptions`). Closes
 * the peer and rethrows on any failure.
 */
export async function meetServer(
  peer: Peer,
  info: Implementation,
  options: ClientOptions,
  { timeout, fatal, window, own, closed }: MeetingOptions,
): Promise<MetServer> {
  let server: ServerView;
  try {
    server = await chooseEra(peer, {
      protocolVersion: options.protocolVersion ?? 'auto',
      info,
      capabilities: (revision) => clientCapabilities(options, options.capabilities, revision),
      discoverTimeout: options.discoverTimeout ?? 5_000,
      initializeTimeout: timeout ?? options.requestTimeout ?? 60_000,
      ...(fatal ? { fatal } : {}),
      window,
    });
  } catch (error) {
    await peer.close();
    throw error;
  }
  if (server.era !== 'stateless') return { server, channel: new HandshakeChannel(peer, server, own) };
  const sender = new StatelessSender(peer, server.protocolVersion, {
    info,
    capabilities: clientCapabilities(options, options.capabilities, LATEST_REVISION),
  });
  sender.serverInfo = server.serverInfo;
  const channel = new StatelessChannel(sender, {
    handlers: options,
    authContext: options.authContext,
    maxInputRounds: options.maxInputRounds,
    defaultTimeout: options.requestTimeout ?? 60_000,
    closed,
  });
  return { server, channel };
}
