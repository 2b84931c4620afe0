/**
 * MCP 2026-07-28, the stateless ("stateless") era: no `initialize`; every request carries its version and
 * client capabilities in `_meta`; results carry `resultType`, list and read results `ttlMs` and
 * `cacheScope`; `ping`, `logging/setLevel` and `resources/subscribe` are gone; tasks left the core
 * (`Tool.execution` is removed); `structuredContent` may be any JSON value.
 * @module
 */
import { revision20251125 } from './2025-11-25.js';
import { defineRevision } from './profile.js';

export const revision20260728 = defineRevision('2026-07-28', {
  ...revision20251125.features,
  tasks: false,
  stateless: true,
});
