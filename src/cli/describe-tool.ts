/**
 * Human-readable summaries of tool definitions, as `toolwire tools` prints them:
 * the name and title, the annotation hints, and one line per schema.
 *
 * @example
 * summarizeSchema({ type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'] });
 * // 'path: string (required), limit?: integer'
 * @module
 */
import { isJsonObject, type Tool, type ToolAnnotations } from '../protocol/index.js';
import { oneLine } from './terminal-text.js';

/** The declared hints, in words: `read-only, idempotent, closed-world`; '' when none is declared. */
export function summarizeAnnotations(annotations: ToolAnnotations | undefined): string {
  if (!annotations) return '';
  const hints: string[] = [];
  const say = (value: boolean | undefined, yes: string, no: string) => {
    if (value === true) hints.push(yes);
    else if (value === false) hints.push(no);
  };
  say(annotations.readOnlyHint, 'read-only', 'not read-only');
  say(annotations.destructiveHint, 'destructive', 'non-destructive');
  say(annotations.idempotentHint, 'idempotent', 'not idempotent');
  say(annotations.openWorldHint, 'open-world', 'closed-world');
  return hints.join(', ');
}

/** One line for an object schema: `path: string (required), limit?: integer`. */
export function summarizeSchema(schema: unknown): string {
  if (!isJsonObject(schema)) return 'any';
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === 'string') : [],
  );
  const names = Object.keys(properties);
  if (names.length === 0) return schema.additionalProperties === false ? '(no arguments)' : '(any object)';
  return names
    .map((name) => {
      const type = typeName(properties[name]);
      return required.has(name) ? `${name}: ${type} (required)` : `${name}?: ${type}`;
    })
    .join(', ');
}

/** A compact type name for one subschema: `string`, `integer[]`, `"a"|"b"`, `string|null`, `object`. */
export function typeName(schema: unknown, depth = 0): string {
  if (schema === true || schema === undefined) return 'any';
  if (schema === false) return 'never';
  if (!isJsonObject(schema)) return 'any';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join('|');
  const union = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : null;
  if (union && depth < 3) return union.map((s) => typeName(s, depth + 1)).join('|');
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop() ?? 'ref';
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length === 0) return 'any';
  return types
    .map((t) => {
      if (t === 'array' && depth < 3) {
        const item = typeName(schema.items, depth + 1);
        return item.includes('|') ? `(${item})[]` : `${item}[]`;
      }
      return String(t);
    })
    .join('|');
}

/** The first sentence of a description (its first line at most), shortened. */
function firstSentence(text: string, max = 120): string {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  const sentence = line.split(/(?<=\.)\s/)[0] ?? line;
  return sentence.length > max ? `${sentence.slice(0, max - 1)}…` : sentence;
}

/**
 * The block `toolwire tools` prints for one tool: each of its lines one line, whatever line breaks the
 * server put in the tool's name, title, description or argument names (written out as `\n`), so that they
 * cannot write what reads as a line of their own (`  hints:  read-only`).
 */
export function describeTool(tool: Tool): string {
  const title = tool.title ?? tool.annotations?.title;
  const lines = [title && title !== tool.name ? `${tool.name} — ${title}` : tool.name];
  if (tool.description) lines.push(`  ${firstSentence(tool.description)}`);
  const hints = summarizeAnnotations(tool.annotations);
  if (hints) lines.push(`  hints:  ${hints}`);
  lines.push(`  input:  ${summarizeSchema(tool.inputSchema)}`);
  if (tool.outputSchema) lines.push(`  output: ${summarizeSchema(tool.outputSchema)}`);
  return lines.map(oneLine).join('\n');
}
