/**
 * MCP 2025-06-18: adds titles, `outputSchema` + `structuredContent`, resource links, `_meta` on tools
 * and content, `lastModified` annotations, completion context and elicitation; removes batching.
 * @module
 */
import { revision20250326 } from './2025-03-26.js';
import { defineRevision } from './profile.js';

export const revision20250618 = defineRevision('2025-06-18', {
  ...revision20250326.features,
  batching: false,
  titles: true,
  completionContext: true,
  structuredContent: true,
  resourceLinks: true,
  contentMeta: true,
  elicitation: true,
});
