/**
 * MCP 2024-11-05: the first dated revision. Text, image and embedded-resource content only; no tool
 * annotations, titles, structured output, audio, resource links, icons or batching.
 * @module
 */
import { defineRevision } from './profile.js';

export const revision20241105 = defineRevision('2024-11-05', {
  batching: false,
  toolAnnotations: false,
  audioContent: false,
  progressMessage: false,
  completions: false,
  completionContext: false,
  titles: false,
  structuredContent: false,
  resourceLinks: false,
  contentMeta: false,
  elicitation: false,
  elicitationModes: false,
  samplingTools: false,
  icons: false,
  schemaDialect: false,
  tasks: false,
  optionalErrorId: false,
  stateless: false,
});
