/**
 * MCP 2025-11-25: adds icons (and implementation description/websiteUrl), `$schema` with JSON Schema
 * 2020-12 as the default dialect, experimental tasks, URL-mode elicitation, tool use in sampling, and
 * error responses without an id.
 * @module
 */
import { revision20250618 } from './2025-06-18.js';
import { defineRevision } from './profile.js';

export const revision20251125 = defineRevision('2025-11-25', {
  ...revision20250618.features,
  icons: true,
  schemaDialect: true,
  tasks: true,
  elicitationModes: true,
  samplingTools: true,
  optionalErrorId: true,
});
