/**
 * The protocol revisions toolwire speaks, and version negotiation for the handshake era.
 * @module
 */
import { revision20241105 } from './2024-11-05.js';
import { revision20250326 } from './2025-03-26.js';
import { revision20250618 } from './2025-06-18.js';
import { revision20251125 } from './2025-11-25.js';
import type { RevisionProfile } from './profile.js';

export type { RevisionFeatures } from './features.js';
export type { RevisionProfile } from './profile.js';

/** Handshake-era revisions, newest first. */
export const LEGACY_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export type LegacyRevision = (typeof LEGACY_REVISIONS)[number];
export const LATEST_LEGACY_REVISION: LegacyRevision = '2025-11-25';

const PROFILES: ReadonlyMap<string, RevisionProfile> = new Map([
  ['2024-11-05', revision20241105],
  ['2025-03-26', revision20250326],
  ['2025-06-18', revision20250618],
  ['2025-11-25', revision20251125],
]);

export function isLegacyRevision(version: unknown): version is LegacyRevision {
  return typeof version === 'string' && PROFILES.has(version);
}

export function profileFor(version: LegacyRevision): RevisionProfile {
  const profile = PROFILES.get(version);
  if (!profile) throw new RangeError(`unknown protocol revision ${version}`);
  return profile;
}

/**
 * Server-side negotiation: the client's version when supported, else our latest among `supported`.
 */
export function negotiateVersion(
  requested: string,
  supported: readonly LegacyRevision[] = LEGACY_REVISIONS,
): LegacyRevision {
  const match = supported.find((v) => v === requested);
  return match ?? supported[0] ?? LATEST_LEGACY_REVISION;
}
