/**
 * The result shapes of the "pocket spec" (a short guide to MCP tools that many agents and hand-written
 * servers follow), as a variant of a revision's profile. Its implementation notes ask for more than the
 * schema does:
 * - `content` has at least one item: a result without any gets one text item, the JSON of its
 *   `structuredContent` when it has one (as the schema's "for backwards compatibility" advice says),
 *   else an empty text;
 * - `structuredContent` is always present: `{}` when there is no structured data — only in revisions
 *   that define the field (2025-06-18 and later);
 * - `nextCursor` is always a string: `""` on the last page — only in the handshake era. In the
 *   stateless era (2026-07-28) an empty string is a valid cursor that "MUST NOT be treated as the end of
 *   results", so a client following it would ask for the first page again: there the last page has no
 *   `nextCursor`, as the schema says.
 *
 * The schema's shapes stay the default: the variant is made only for a server that asks for it
 * (`resultShapes: 'pocket'`), once per revision, so the default path costs nothing.
 * @module
 */
import type { ContentBlock } from '../types/content.js';
import type { CallToolResult, Tool } from '../types/tools.js';
import type { RevisionFeatures } from './features.js';
import type { RevisionProfile } from './profile.js';

/** A result already shaped for a revision, in the pocket spec's shapes (a copy when anything is added). */
export function pocketCallResult(result: CallToolResult, f: RevisionFeatures): CallToolResult {
  const structured = result.structuredContent;
  const defined = f.structuredContent || f.stateless;
  if (result.content.length > 0 && (structured !== undefined || !defined)) return result;
  const content: ContentBlock[] =
    result.content.length > 0
      ? result.content
      : [{ type: 'text', text: structured === undefined ? '' : JSON.stringify(structured) }];
  const { content: _content, structuredContent: _structured, ...rest } = result;
  const out: CallToolResult = { content };
  if (structured !== undefined) out.structuredContent = structured;
  else if (defined) out.structuredContent = {};
  return Object.assign(out, rest);
}

const POCKET = new WeakMap<RevisionProfile, RevisionProfile>();

/** `profile` speaking the pocket spec's shapes (one frozen variant per profile, made on first use). */
export function pocketProfile(profile: RevisionProfile): RevisionProfile {
  let pocket = POCKET.get(profile);
  if (pocket) return pocket;
  const f = profile.features;
  pocket = Object.freeze({
    ...profile,
    shapes: 'pocket' as const,
    endCursor: f.stateless ? undefined : '',
    shapeCallResult: (result: CallToolResult, tool?: Pick<Tool, 'outputSchema'>) =>
      pocketCallResult(profile.shapeCallResult(result, tool), f),
  });
  POCKET.set(profile, pocket);
  return pocket;
}
