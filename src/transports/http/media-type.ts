/**
 * Media types as HTTP writes them (RFC 9110 §8.3.1 `Content-Type`, §12.5.1 `Accept`): `type/subtype`
 * with parameters, compared case-insensitively, parsed in one pass (quoted strings included), never by
 * substring: `application/json-seq` is not `application/json`, and `text/event-stream;q=0` refuses the
 * type it names. An `Accept` range matches by precedence: the most specific range that covers the type
 * decides (`type/subtype`, then `type/*`, then `*∕*`), and a weight of 0 means "not acceptable".
 * @module
 */

/** One media type or media range: lower-case type, subtype and parameter names; `q` taken out. */
export interface MediaRange {
  type: string;
  subtype: string;
  /** The weight (`q`), 1 when absent. */
  q: number;
  params: Record<string, string>;
}

/** tchar (RFC 9110 §5.6.2). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** qvalue (RFC 9110 §12.4.2): 0 to 1, at most three decimals. */
const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/** Splits `text` at `separator`, except inside quoted strings (backslash escapes honoured). */
function split(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
    } else if (c === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function unquote(value: string): string | undefined {
  if (!value.startsWith('"')) return TOKEN.test(value) ? value : undefined;
  if (value.length < 2 || !value.endsWith('"')) return undefined;
  return value.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** One `type/subtype *(; name=value)`, or undefined when it is not one. */
export function parseMediaType(text: string): MediaRange | undefined {
  const [head = '', ...rest] = split(text, ';');
  const slash = head.indexOf('/');
  const type = head.slice(0, slash).trim().toLowerCase();
  const subtype = head
    .slice(slash + 1)
    .trim()
    .toLowerCase();
  if (slash === -1 || !TOKEN.test(type) || !TOKEN.test(subtype)) return undefined;
  const range: MediaRange = { type, subtype, q: 1, params: {} };
  for (const part of rest) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const equals = trimmed.indexOf('=');
    const name = trimmed.slice(0, equals).trim().toLowerCase();
    const value = unquote(trimmed.slice(equals + 1).trim());
    if (equals === -1 || !TOKEN.test(name) || value === undefined) return undefined;
    if (name === 'q') {
      if (!QVALUE.test(value)) return undefined;
      range.q = Number(value);
    } else {
      range.params[name] = value;
    }
  }
  return range;
}

/** The ranges of an `Accept` header, in order; elements that are not media ranges are left out. */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const element of split(header, ',')) {
    const range = element.trim() === '' ? undefined : parseMediaType(element);
    if (range && (range.type !== '*' || range.subtype === '*')) ranges.push(range);
  }
  return ranges;
}

/** The weight `ranges` give `type/subtype` (0: not acceptable): the most specific matching range's. */
export function acceptWeight(ranges: readonly MediaRange[], type: string, subtype: string): number {
  let best = -1;
  let q = 0;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*'
            ? 0
            : -1;
    if (specificity > best) {
      best = specificity;
      q = range.q;
    }
  }
  return q;
}

/** What an `Accept` header allows of the two types MCP answers with. */
export interface Acceptable {
  json: boolean;
  eventStream: boolean;
}

const NONE: Acceptable = { json: false, eventStream: false };
const BOTH: Acceptable = { json: true, eventStream: true };
/** Verdicts by header value: clients send the same few values again and again. */
const acceptCache = new Map<string, Acceptable>([
  ['application/json, text/event-stream', BOTH],
  ['text/event-stream, application/json', BOTH],
]);
const contentTypeCache = new Map<string, boolean>([['application/json', true]]);
const CACHED = 64;

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= CACHED) cache.clear();
  cache.set(key, value);
  return value;
}

/** Whether an `Accept` header (null: absent, which MCP forbids) allows JSON and SSE answers. */
export function acceptable(header: string | null): Acceptable {
  if (header === null) return NONE;
  const cached = acceptCache.get(header);
  if (cached) return cached;
  const ranges = parseAccept(header);
  return remember(acceptCache, header, {
    json: acceptWeight(ranges, 'application', 'json') > 0,
    eventStream: acceptWeight(ranges, 'text', 'event-stream') > 0,
  });
}

/** Whether a `Content-Type` header is `application/json` (parameters allowed; a charset must be UTF-8). */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  const cached = contentTypeCache.get(header);
  if (cached !== undefined) return cached;
  const media = parseMediaType(header);
  const charset = media?.params.charset?.toLowerCase();
  return remember(
    contentTypeCache,
    header,
    media !== undefined &&
      media.type === 'application' &&
      media.subtype === 'json' &&
      (charset === undefined || charset === 'utf-8'),
  );
}
