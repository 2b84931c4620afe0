/**
 * The YAML frontmatter of a SKILL.md (the `---` delimited block it begins with), parsed just far enough
 * for the `frontmatter` of a skill's entry (SEP-2640): a server renders it as JSON, a client compares
 * it field by field with the entry's. Supported:
 * block mappings nested by indentation, block sequences, flow sequences of scalars, plain and quoted
 * scalars (with YAML's `true`/`false`/`null`/number forms) and `#` comments. Anything else (anchors,
 * block scalars, multi-line flow collections) makes the whole block unparseable: `undefined`, which a
 * client treats as a mismatch and a server as a definition it cannot serve, rather than guessing.
 * @module
 */
import { isJsonObject, type JsonObject } from '../jsonrpc.js';

const BLOCK = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The frontmatter mapping of a SKILL.md; `undefined` when there is none or it is beyond this parser. */
export function parseFrontmatter(markdown: string): JsonObject | undefined {
  const text = markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown;
  const block = BLOCK.exec(text)?.[1];
  if (block === undefined) return undefined;
  const lines: Line[] = [];
  for (const raw of block.split(/\r?\n/)) {
    const content = stripComment(raw).trimEnd();
    if (content.trim() === '') continue;
    if (/^\t/.test(content)) return undefined;
    lines.push({ indent: content.length - content.trimStart().length, text: content.trim() });
  }
  try {
    const cursor = { at: 0 };
    const value = parseNode(lines, cursor, 0);
    if (cursor.at !== lines.length || !isMapping(value)) return undefined;
    return value;
  } catch {
    return undefined;
  }
}

/** The fields whose values differ between two frontmatter objects (a missing field counts as null). */
export function frontmatterDifferences(file: JsonObject, entry: JsonObject): string[] {
  const fields = new Set([...Object.keys(file), ...Object.keys(entry)]);
  return [...fields].filter((field) => !sameValue(file[field] ?? null, entry[field] ?? null));
}

interface Line {
  indent: number;
  text: string;
}

class Unsupported extends Error {}

const isMapping = isJsonObject;

function parseNode(lines: Line[], cursor: { at: number }, indent: number): unknown {
  const first = lines[cursor.at];
  if (!first || first.indent < indent) return null;
  return first.text.startsWith('- ') || first.text === '-'
    ? parseSequence(lines, cursor, first.indent)
    : parseMapping(lines, cursor, first.indent);
}

function parseMapping(lines: Line[], cursor: { at: number }, indent: number): JsonObject {
  const mapping: JsonObject = {};
  for (let line = lines[cursor.at]; line && line.indent === indent; line = lines[cursor.at]) {
    const match = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^'"\s][^:]*?)\s*:(?:\s+(.*))?$/.exec(line.text);
    if (!match?.[1]) throw new Unsupported(line.text);
    const key = String(scalar(match[1]));
    if (Object.hasOwn(mapping, key)) throw new Unsupported(`duplicate key ${key}`);
    cursor.at++;
    const rest = match[2];
    if (rest !== undefined && rest !== '') {
      mapping[key] = inline(rest);
      continue;
    }
    const next = lines[cursor.at];
    const nested = next && (next.indent > indent || (next.indent === indent && next.text.startsWith('- ')));
    mapping[key] = nested ? parseNode(lines, cursor, next.indent) : null;
  }
  const after = lines[cursor.at];
  if (after && after.indent > indent) throw new Unsupported(after.text);
  return mapping;
}

function parseSequence(lines: Line[], cursor: { at: number }, indent: number): unknown[] {
  const items: unknown[] = [];
  for (let line = lines[cursor.at]; line && line.indent === indent; line = lines[cursor.at]) {
    if (!(line.text.startsWith('- ') || line.text === '-')) break;
    const rest = line.text.slice(1).trim();
    if (/^[^'"[{][^:]*:(\s|$)/.test(rest)) throw new Unsupported(`mapping in a sequence: ${rest}`);
    cursor.at++;
    const next = lines[cursor.at];
    if (rest === '') items.push(next && next.indent > indent ? parseNode(lines, cursor, next.indent) : null);
    else items.push(inline(rest));
  }
  return items;
}

function inline(text: string): unknown {
  if (text.startsWith('[')) {
    if (!text.endsWith(']')) throw new Unsupported(text);
    const body = text.slice(1, -1).trim();
    if (body === '') return [];
    return splitFlow(body).map((item) => scalar(item.trim()));
  }
  if (/^[{|>&*!]/.test(text)) throw new Unsupported(text);
  return scalar(text);
}

function splitFlow(body: string): string[] {
  const items: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (const char of body) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '[' || char === '{') throw new Unsupported(body);
    else if (char === ',') {
      items.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  items.push(current);
  return items;
}

function scalar(text: string): unknown {
  if (text.startsWith('"')) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(text)) throw new Unsupported(text);
    return JSON.parse(text) as string;
  }
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) throw new Unsupported(text);
    return text.slice(1, -1).replaceAll("''", "'");
  }
  if (/^(?:null|Null|NULL|~)$/.test(text)) return null;
  if (/^(?:true|True|TRUE)$/.test(text)) return true;
  if (/^(?:false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(text)) return Number(text);
  return text;
}

/** The line without a trailing `# comment` (a `#` inside quotes or glued to a word is kept). */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quote) {
      if (char === quote) quote = undefined;
    } else if ((char === '"' || char === "'") && /^$|[\s:[,-]$/.test(line[i - 1] ?? '')) quote = char;
    else if (char === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) return line.slice(0, i);
  }
  return line;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]))
    );
  }
  if (!isMapping(a) || !isMapping(b)) return false;
  return frontmatterDifferences(a, b).length === 0;
}
