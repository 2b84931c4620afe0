/**
 * The text of one SSE event, as a stream sends it: its fields, each on a line of its own, and a blank
 * line that ends it.
 * @module
 */

export interface SseEventFields {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

/** Formats one SSE event (every data line prefixed, as the SSE standard requires). */
export function formatSseEvent(fields: SseEventFields): string {
  let out = '';
  if (fields.event !== undefined) out += `event: ${fields.event}\n`;
  if (fields.id !== undefined) out += `id: ${fields.id}\n`;
  if (fields.retry !== undefined) out += `retry: ${fields.retry}\n`;
  if (fields.data !== undefined) {
    // A JSON-RPC message (JSON text has no raw line break) is one data line: no split.
    if (fields.data.indexOf('\n') === -1) out += `data: ${fields.data}\n`;
    else for (const line of fields.data.split('\n')) out += `data: ${line}\n`;
  } else {
    out += 'data: \n';
  }
  return `${out}\n`;
}
