/**
 * Meeting the server, and choosing the era to speak with it.
 *
 * - `auto` (the default): probe with `server/discover`, sent as a stateless-era request with a short
 *   timeout. A DiscoverResult naming a version this client speaks, or a -32022 whose `supported` list
 *   names one (the probe is then repeated with it), means the stateless era (2026-07-28). Any other
 *   answer — another error, a result that is not a DiscoverResult, no answer within the timeout, a
 *   transport that refuses the message — means a handshake-era server: the client falls back to
 *   `initialize` on the same connection. The fallback is not keyed to any particular error code.
 *   On stdio (a server process the client started: `window` is set) the handshake era also lets a
 *   server refuse the probe by exiting or by never answering; see `probeStdio` for both.
 * - A pinned stateless-era revision skips the handshake but still calls `server/discover` (for the
 *   capabilities, instructions and server info); a failure there fails the connection (a server that does
 *   not speak the pinned revision: ClientError UNSUPPORTED_PROTOCOL_VERSION).
 * - A pinned handshake-era revision sends `initialize` offering only that one.
 * @module
 */
import type { Peer } from '../protocol/engine/peer.js';
import { LocalErrorCode } from '../protocol/errors.js';
import { isJsonObject, wireObject, type JsonObject } from '../protocol/jsonrpc.js';
import {
  HANDSHAKE_REVISIONS,
  LATEST_HANDSHAKE_REVISION,
  LATEST_REVISION,
  STATELESS_REVISIONS,
  isHandshakeRevision,
  isStatelessRevision,
  profileFor,
  type HandshakeRevision,
  type Revision,
} from '../protocol/revisions/index.js';
import type { ClientCapabilities, Implementation, ServerCapabilities } from '../protocol/types/lifecycle.js';
import { META } from '../protocol/types/stateless.js';
import { ClientError } from './client-error.js';
import { resultTypeOf } from './stateless/plain-result.js';
import { pickStatelessVersion, statelessMeta, unsupportedVersionList } from './stateless/stateless-meta.js';
import type { ProbeWindow } from './probe-window.js';

/** What the client knows of the server once connected, in either era. */
export interface ServerView {
  era: 'handshake' | 'stateless';
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
}

/**
 * Stdio: how long the probe waits for an answer before it also sends an `initialize` that only a
 * handshake-era server accepts (see `probeStdio`), in ms.
 */
export const HANDSHAKE_AFTER_MS = 300;

export interface EraOptions {
  protocolVersion: 'auto' | Revision;
  info: Implementation;
  /** The capabilities to declare, as `revision` (the one offered or spoken) defines them. */
  capabilities: (revision: Revision) => ClientCapabilities;
  /** How long the `server/discover` probe (or a pinned-era discover) may take, in ms. */
  discoverTimeout: number;
  /** How long `initialize` may take, in ms. */
  initializeTimeout: number;
  /** A probe failure no fallback can fix (e.g. refused credentials): rethrown instead of falling back. */
  fatal?: (error: unknown) => boolean;
  /** Set when the server is a process the client started and can start again (stdio). */
  window?: ProbeWindow | undefined;
}

/** The view a DiscoverResult gives, speaking the newest version both sides speak; undefined otherwise. */
function readDiscoverResult(result: JsonObject): ServerView | undefined {
  if (resultTypeOf(result) !== 'complete') return undefined;
  if (!Array.isArray(result.supportedVersions) || !isJsonObject(result.capabilities)) return undefined;
  const version = pickStatelessVersion(result.supportedVersions);
  if (version === undefined) return undefined;
  const meta = isJsonObject(result._meta) ? result._meta : {};
  const info = meta[META.serverInfo];
  return {
    era: 'stateless',
    protocolVersion: version,
    capabilities: result.capabilities as ServerCapabilities,
    serverInfo:
      isJsonObject(info) && typeof info.name === 'string' ? (info as unknown as Implementation) : undefined,
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}

function discover(
  peer: Peer,
  version: string,
  options: EraOptions,
  signal?: AbortSignal,
): Promise<JsonObject> {
  const meta = statelessMeta(version, options.capabilities(LATEST_REVISION), options.info);
  return peer.request(
    'server/discover',
    { _meta: meta },
    { timeout: options.discoverTimeout, ...(signal ? { signal } : {}) },
  );
}

/** The stateless-era view, or undefined when the server did not answer as a stateless-era server. */
async function probe(peer: Peer, options: EraOptions, signal?: AbortSignal): Promise<ServerView | undefined> {
  let version: string | undefined = STATELESS_REVISIONS[0];
  for (let attempt = 0; attempt < 2 && version !== undefined; attempt++) {
    try {
      return readDiscoverResult(await discover(peer, version, options, signal));
    } catch (error) {
      if (peer.closed || options.fatal?.(error)) throw error;
      // After a first -32022, any version we share may be tried (even the same: SEP-2575 retry).
      version = pickStatelessVersion(
        unsupportedVersionList(error),
        STATELESS_REVISIONS,
        attempt === 0 ? undefined : version,
      );
    }
  }
  return undefined;
}

async function pinnedStateless(peer: Peer, version: string, options: EraOptions): Promise<ServerView> {
  let result: JsonObject;
  try {
    result = await discover(peer, version, options).catch((error: unknown) => {
      // A -32022 that lists the very version we asked for: ask once more with it (SEP-2575 retry).
      if (unsupportedVersionList(error)?.includes(version)) return discover(peer, version, options);
      throw error;
    });
  } catch (error) {
    if (!unsupportedVersionList(error)) throw error;
    throw new ClientError(
      LocalErrorCode.UnsupportedProtocolVersion,
      `The server does not speak protocol version ${version}`,
      { cause: error, details: { requested: version, supported: unsupportedVersionList(error) } },
    );
  }
  const view = readDiscoverResult(result);
  const supported = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
  if (!view || !supported.includes(version)) {
    throw new ClientError(
      LocalErrorCode.UnsupportedProtocolVersion,
      view
        ? `The server does not list protocol version ${version} (it lists ${supported.join(', ')})`
        : 'The server sent an invalid server/discover result',
      { details: { requested: version, result } },
    );
  }
  return { ...view, protocolVersion: version };
}

/**
 * Sends `initialize` and reads its result (without `notifications/initialized`: see `initialize`).
 * `marked`: the request also carries the stateless era's `_meta`, so that only a handshake-era server
 * accepts it (see `probeStdio`).
 */
async function handshake(
  peer: Peer,
  pinned: HandshakeRevision | undefined,
  options: EraOptions,
  marked?: { signal: AbortSignal },
): Promise<ServerView> {
  const offered = pinned ?? LATEST_HANDSHAKE_REVISION;
  // Shaped for the revision offered: a server of that revision gets nothing it does not define.
  const params: JsonObject = {
    protocolVersion: offered,
    capabilities: options.capabilities(offered),
    clientInfo: wireObject(profileFor(offered).shapeImplementation(options.info)),
  };
  if (marked)
    params._meta = statelessMeta(LATEST_REVISION, options.capabilities(LATEST_REVISION), options.info);
  const result = await peer.request('initialize', params, {
    timeout: options.initializeTimeout,
    ...(marked ? { signal: marked.signal } : {}),
  });
  const version = result.protocolVersion;
  const accepted = pinned ? version === pinned : isHandshakeRevision(version);
  if (!accepted || !isJsonObject(result.capabilities) || !isJsonObject(result.serverInfo)) {
    throw new ClientError(
      LocalErrorCode.UnsupportedProtocolVersion,
      accepted
        ? 'The server sent an invalid initialize result'
        : `The server chose protocol version ${String(version)}, which this client does not support (it speaks ${(pinned ? [pinned] : HANDSHAKE_REVISIONS).join(', ')})`,
      { details: { serverVersion: version } },
    );
  }
  return {
    era: 'handshake',
    protocolVersion: version as string,
    capabilities: result.capabilities as ServerCapabilities,
    serverInfo: result.serverInfo as unknown as Implementation,
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}

/** What settles the stdio probe (see `probeStdio`). */
type ProbeEvent =
  | { kind: 'discovered'; view: ServerView | undefined }
  | { kind: 'failed'; error: unknown }
  | { kind: 'quiet' }
  | { kind: 'shook-hands'; view: ServerView }
  | { kind: 'refused' }
  | { kind: 'exited' };

/**
 * `auto` on stdio. The handshake era lets a server refuse a request that comes before `initialize`:
 * some exit, some never answer. Both are met here, and the era stays a property of the server, never
 * of timing:
 *
 * - The server exits during the probe: the window starts it again (once; see ProbeWindow) and the
 *   client shakes hands with the new process.
 * - No answer within HANDSHAKE_AFTER_MS: the server may be silent on purpose, or still starting (a
 *   server run through `npx` takes seconds before it reads its first line). The client then also sends
 *   an `initialize` that carries the stateless era's `_meta`, and the probe stays open. A server that
 *   serves the stateless era serves a request with that `_meta` statelessly, and the stateless era has
 *   no `initialize`, so it refuses it (no handshake-era session is opened); a handshake-era server
 *   ignores `_meta` keys it does not know, and shakes hands. Hence, whichever comes first: a
 *   DiscoverResult means the stateless era; an `initialize` result means the handshake era; a refused
 *   `initialize` decides nothing — the probe's answer (or its timeout) does.
 * - Any other answer to the probe, or none within discoverTimeout: the handshake era, through the
 *   `initialize` already sent if the server accepted it, else a plain one.
 */
async function probeStdio(peer: Peer, options: EraOptions, window: ProbeWindow): Promise<ServerView> {
  const probing = new AbortController();
  const marking = new AbortController();
  let discovery: Promise<ProbeEvent> | undefined = probe(peer, options, probing.signal).then(
    (view): ProbeEvent => ({ kind: 'discovered', view }),
    (error: unknown): ProbeEvent => ({ kind: 'failed', error }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  let quiet: Promise<ProbeEvent> | undefined;
  if (HANDSHAKE_AFTER_MS < options.discoverTimeout) {
    quiet = new Promise(
      (resolve) => (timer = setTimeout(() => resolve({ kind: 'quiet' }), HANDSHAKE_AFTER_MS)),
    );
  }
  let marked: Promise<ProbeEvent> | undefined;
  const exited = window.restarting.then((): ProbeEvent => ({ kind: 'exited' }));
  try {
    for (;;) {
      const event = await Promise.race([discovery, quiet, marked, exited].filter((p) => p !== undefined));
      // Decided (but for a restart): from here on, an exit closes the connection.
      if (event.kind !== 'quiet' && event.kind !== 'refused' && event.kind !== 'exited') window.end();
      switch (event.kind) {
        case 'exited':
          // Both requests died with the process; their cancellations are refused while it restarts.
          probing.abort();
          marking.abort();
          await window.restarted();
          return await initialize(peer, undefined, options);
        case 'failed':
          throw event.error;
        case 'quiet':
          quiet = undefined;
          marked = handshake(peer, undefined, options, { signal: marking.signal }).then(
            (view): ProbeEvent => ({ kind: 'shook-hands', view }),
            (): ProbeEvent => ({ kind: 'refused' }),
          );
          break;
        case 'refused':
          marked = undefined;
          break;
        case 'shook-hands': {
          const view = await initialized(peer, event.view);
          probing.abort(); // notifications/cancelled for the probe, after the handshake
          return view;
        }
        case 'discovered': {
          discovery = undefined;
          // Stateless era: a marked initialize still on its way is refused by the server; let it be.
          if (event.view) return event.view;
          const settled = await marked;
          if (settled?.kind === 'shook-hands') return await initialized(peer, settled.view);
          return await initialize(peer, undefined, options);
        }
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The handshake: `initialize`, then `notifications/initialized`. */
async function initialize(
  peer: Peer,
  pinned: HandshakeRevision | undefined,
  options: EraOptions,
): Promise<ServerView> {
  return initialized(peer, await handshake(peer, pinned, options));
}

async function initialized(peer: Peer, view: ServerView): Promise<ServerView> {
  await peer.notify('notifications/initialized');
  return view;
}

/** Meets the server as `options.protocolVersion` says. Throws (without closing the peer) on failure. */
export async function chooseEra(peer: Peer, options: EraOptions): Promise<ServerView> {
  const pinned = options.protocolVersion;
  if (pinned === 'auto' && options.window) return probeStdio(peer, options, options.window);
  if (pinned === 'auto') return (await probe(peer, options)) ?? initialize(peer, undefined, options);
  if (isStatelessRevision(pinned)) return pinnedStateless(peer, pinned, options);
  return initialize(peer, pinned, options);
}
