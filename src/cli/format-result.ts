/**
 * Renders a tool result for a terminal, as `toolwire call` prints it: text as text, binary content
 * as a one-line summary, structured content pretty-printed.
 *
 * | block                | printed as                                        |
 * | -------------------- | ------------------------------------------------- |
 * | text                 | the text                                          |
 * | image / audio        | `[image image/png, 68 bytes]`                     |
 * | resource_link        | `[link name uri]`                                 |
 * | resource (embedded)  | `[resource uri text/plain, 3 chars]` + the text's first lines |
 * | structuredContent    | JSON, 2-space indented                            |
 *
 * A summary line is one line whatever line breaks the server put in a name, URI or MIME type (`oneLine`).
 * @module
 */
import type { CallToolResult, ContentBlock } from '../protocol/index.js';
import { oneLine } from './terminal-text.js';

/** Lines of an embedded text resource shown under its summary. */
const PREVIEW_LINES = 5;

/** The decoded size of base64 data, without decoding it. */
export function base64Size(data: string): number {
  const clean = data.replace(/[^A-Za-z0-9+/=_-]/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** One block, as text (no trailing newline). */
export function formatBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return oneLine(`[${block.type} ${block.mimeType}, ${base64Size(block.data)} bytes]`);
    case 'resource_link':
      return oneLine(`[link ${block.name} ${block.uri}]`);
    case 'resource': {
      const r = block.resource;
      const mime = r.mimeType ? ` ${r.mimeType}` : '';
      if ('text' in r) {
        const lines = r.text.split('\n');
        const preview = lines.slice(0, PREVIEW_LINES).map((line) => `  ${line}`);
        if (lines.length > PREVIEW_LINES) preview.push(`  … (${lines.length - PREVIEW_LINES} more lines)`);
        return [oneLine(`[resource ${r.uri}${mime}, ${r.text.length} chars]`), ...preview].join('\n');
      }
      return oneLine(`[resource ${r.uri}${mime}, ${base64Size(r.blob)} bytes]`);
    }
    default:
      return oneLine(`[${String((block as { type?: unknown }).type)} block]`);
  }
}

/** Whether a text block is just the JSON of the structured content (the `structured()` fallback). */
function mirrorsStructured(block: ContentBlock, structured: unknown): boolean {
  if (block.type !== 'text' || structured === undefined) return false;
  try {
    return JSON.stringify(JSON.parse(block.text)) === JSON.stringify(structured);
  } catch {
    return false;
  }
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

/**
 * The whole result as text, ending with a newline (empty string for an empty result). The structured
 * content replaces the text block that mirrors it, or follows the blocks when none does.
 */
export function formatResult(result: CallToolResult): string {
  const structured = result.structuredContent;
  // `{}` beside other content says nothing (servers written to the pocket spec always send it): not printed.
  const pretty =
    structured === undefined || (result.content.length > 0 && isEmptyObject(structured))
      ? undefined
      : JSON.stringify(structured, null, 2);
  let placed = false;
  const parts: string[] = [];
  for (const block of result.content) {
    if (!placed && pretty !== undefined && mirrorsStructured(block, structured)) {
      parts.push(pretty);
      placed = true;
    } else {
      parts.push(formatBlock(block));
    }
  }
  if (!placed && pretty !== undefined) parts.push(pretty);
  return parts.length === 0 ? '' : `${parts.join('\n')}\n`;
}
