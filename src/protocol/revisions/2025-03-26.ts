/**
 * MCP 2025-03-26: adds tool annotations, audio content, progress messages, completions, and
 * JSON-RPC batches (which a receiver MUST accept; removed again in 2025-06-18).
 * @module
 */
import { revision20241105 } from './2024-11-05.js';
import { defineRevision } from './profile.js';

export const revision20250326 = defineRevision('2025-03-26', {
  ...revision20241105.features,
  batching: true,
  toolAnnotations: true,
  audioContent: true,
  progressMessage: true,
  completions: true,
});
