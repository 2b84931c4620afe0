/**
 * The protocol revisions toolwire speaks: the handshake era (2024-11-05 … 2025-11-25, `initialize`) and
 * the stateless era (2026-07-28, version in every request's `_meta`), and version negotiation.
 * @module
 */
import { revision20241105 } from './2024-11-05.js';
import { revision20250326 } from './2025-03-26.js';
import { revision20250618 } from './2025-06-18.js';
import { revision20251125 } from './2025-11-25.js';
import { revision20260728 } from './2026-07-28.js';
import { pocketProfile } from './pocket-shapes.js';
import type { ResultShapes, RevisionProfile } from './profile.js';

export type { RevisionFeatures } from './features.js';
export type { ResultShapes, RevisionProfile } from './profile.js';
export type { ResultExtras } from './finish-result.js';

/** Handshake-era revisions, newest first. */
export const HANDSHAKE_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export type HandshakeRevision = (typeof HANDSHAKE_REVISIONS)[number];
export const LATEST_HANDSHAKE_REVISION: HandshakeRevision = '2025-11-25';

/** Stateless-era revisions, newest first. */
export const STATELESS_REVISIONS = ['2026-07-28'] as const;
export type StatelessRevision = (typeof STATELESS_REVISIONS)[number];
export const LATEST_REVISION: StatelessRevision = '2026-07-28';

/** Every revision, newest first. */
export const ALL_REVISIONS = [...STATELESS_REVISIONS, ...HANDSHAKE_REVISIONS] as const;
export type Revision = HandshakeRevision | StatelessRevision;
/**
 * The two eras of the protocol: the handshake era (`initialize` settles a revision per connection,
 * 2024-11-05 to 2025-11-25) and the stateless era (each request carries its revision, 2026-07-28).
 */
export type Era = 'handshake' | 'stateless';

const PROFILES: ReadonlyMap<string, RevisionProfile> = new Map([
  ['2024-11-05', revision20241105],
  ['2025-03-26', revision20250326],
  ['2025-06-18', revision20250618],
  ['2025-11-25', revision20251125],
  ['2026-07-28', revision20260728],
]);

export function isHandshakeRevision(version: unknown): version is HandshakeRevision {
  return typeof version === 'string' && (HANDSHAKE_REVISIONS as readonly string[]).includes(version);
}

export function isStatelessRevision(version: unknown): version is StatelessRevision {
  return typeof version === 'string' && (STATELESS_REVISIONS as readonly string[]).includes(version);
}

export function isRevision(version: unknown): version is Revision {
  return typeof version === 'string' && PROFILES.has(version);
}

/** The profile of `version`; `shapes: 'pocket'` gives its variant in the pocket spec's shapes. */
export function profileFor(version: Revision, shapes: ResultShapes = 'schema'): RevisionProfile {
  const profile = PROFILES.get(version);
  if (!profile) throw new RangeError(`unknown protocol revision ${version}`);
  return shapes === 'pocket' ? pocketProfile(profile) : profile;
}

/**
 * Handshake negotiation (server side): the client's version when supported, else our latest among
 * `supported`.
 */
export function negotiateVersion(
  requested: string,
  supported: readonly HandshakeRevision[] = HANDSHAKE_REVISIONS,
): HandshakeRevision {
  const match = supported.find((v) => v === requested);
  return match ?? supported[0] ?? LATEST_HANDSHAKE_REVISION;
}
