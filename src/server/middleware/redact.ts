/**
 * Secret redaction: the text each pattern matches becomes `[REDACTED]`, in text and in every string of a
 * JSON value (the default patterns are in `secret-patterns.ts`). A pattern's match is redacted whole, or,
 * when a group named `secret…` ends the match, only that group's text: `api_key=[REDACTED]` keeps the
 * name.
 *
 * Time is linear in the text when the patterns are (the default ones are): each pattern scans the text
 * once, its matches are marked in one byte per character, and the text is rebuilt once, overlapping
 * matches of different patterns merged into one `[REDACTED]`. A JSON value is walked once per distinct
 * object (a value shared by many parents is redacted once), `MAX_JSON_DEPTH` levels deep at most.
 * @module
 */
import { DEFAULT_SECRET_PATTERNS, SECRET_HINTS } from './secret-patterns.js';

export { DEFAULT_SECRET_PATTERNS, SECRET_NAME, SECRET_PATTERNS } from './secret-patterns.js';

export const REDACTED = '[REDACTED]';

/** How deep redaction looks into a JSON value; a value nested deeper is replaced by `[REDACTED]` whole. */
export const MAX_JSON_DEPTH = 64;

/** Object keys whose string values are secrets whatever they look like (for logs: arguments). */
export const SECRET_KEY =
  /pass(?:word|wd|phrase)?$|secret|token|api[_-]?key|authorization|cookie|credential|private[_-]?key/i;

/** A pattern ready to scan: its own copy (its own `lastIndex`), global. */
interface Scanner {
  readonly regex: RegExp;
  /** Whether it has groups named `secret…` (then only their text is redacted). */
  readonly groups: boolean;
}

function scanner(pattern: RegExp): Scanner {
  return {
    regex: new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '') + 'g'),
    groups: /\(\?<secret/.test(pattern.source),
  };
}

/**
 * Where the secret of a match starts: where its `secret…` group's text starts, that group ending the
 * match (the default patterns keep to that; the `d` flag would say it for any group, but makes V8's
 * matching several times slower); the match's start otherwise.
 */
function secretStart(match: RegExpExecArray): number {
  const text = match[0];
  for (const name in match.groups) {
    const group = match.groups[name];
    if (group && name.startsWith('secret') && text.endsWith(group))
      return match.index + text.length - group.length;
  }
  return match.index;
}

/**
 * One byte per character of `text`, 1 where some pattern matched a secret; undefined when none did. A
 * pattern that throws (V8 overflows its backtracking stack on some patterns and huge texts) marks the
 * whole text: what could not be checked is not let through.
 */
function markSecrets(text: string, scanners: readonly Scanner[]): Uint8Array | undefined {
  let marks: Uint8Array | undefined;
  for (const { regex, groups } of scanners) {
    regex.lastIndex = 0;
    try {
      for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
        const end = match.index + match[0].length;
        if (end === match.index) {
          regex.lastIndex = end + 1; // an empty match: step on, or the scan would never end
          continue;
        }
        marks ??= new Uint8Array(text.length);
        marks.fill(1, groups ? secretStart(match) : match.index, end);
      }
    } catch {
      return new Uint8Array(text.length).fill(1);
    }
  }
  return marks;
}

/** `text` with each run of marked characters replaced by `[REDACTED]`. */
function replaceMarked(text: string, marks: Uint8Array): string {
  let out = '';
  let from = 0;
  for (let start = marks.indexOf(1); start !== -1; start = marks.indexOf(1, from)) {
    const end = marks.indexOf(0, start);
    out += text.slice(from, start) + REDACTED;
    from = end === -1 ? text.length : end;
  }
  return out + text.slice(from);
}

/**
 * Patterns that may sit in one alternation with others: no backreferences (their numbers would shift)
 * and no named groups (two patterns may use the same name).
 */
function combinable(pattern: RegExp): boolean {
  return !/\\[1-9]|\\k<|\(\?<(?![=!])/.test(pattern.source);
}

/**
 * Screens for `patterns`: one alternation per set of flags (so a text none of them matches costs a test
 * or two, not one scan per pattern), patterns that cannot share one kept apart; a default pattern is
 * screened by its literal hints.
 */
function screensFor(patterns: readonly RegExp[]): RegExp[] {
  const groups = new Map<string, string[]>();
  const screens: RegExp[] = [];
  for (const pattern of patterns) {
    const flags = pattern.flags.replace(/[gyd]/g, '');
    const hint = SECRET_HINTS.get(pattern);
    if (hint === undefined && !combinable(pattern)) screens.push(new RegExp(pattern.source, flags));
    else groups.set(flags, [...(groups.get(flags) ?? []), hint ?? pattern.source]);
  }
  for (const [flags, sources] of groups) {
    try {
      screens.push(new RegExp(sources.map((source) => `(?:${source})`).join('|'), flags));
    } catch {
      for (const source of sources) screens.push(new RegExp(source, flags));
    }
  }
  return screens;
}

export interface RedactorOptions {
  /** Keys whose non-empty string values are redacted whole in JSON (`SECRET_NAME`, `SECRET_KEY`). */
  secretKeys?: RegExp;
}

/**
 * Redaction compiled once for a list of patterns. A text none of them can match is returned as is after
 * one screening test per set of flags; {@link Redactor.json} copies only what it changes.
 */
export class Redactor {
  readonly patterns: readonly RegExp[];
  readonly #scanners: readonly Scanner[];
  readonly #screens: readonly RegExp[];
  readonly #secretKeys: RegExp | undefined;

  constructor(patterns: readonly RegExp[], options: RedactorOptions = {}) {
    this.patterns = patterns;
    this.#scanners = patterns.map(scanner);
    this.#screens = screensFor(patterns);
    const keys = options.secretKeys;
    this.#secretKeys = keys && new RegExp(keys.source, keys.flags.replace(/[gy]/g, ''));
  }

  /** Whether there is anything to redact with. */
  get active(): boolean {
    return this.patterns.length > 0 || this.#secretKeys !== undefined;
  }

  /** Whether some pattern may match `text` (false: none does; a screen that throws says it may). */
  matches(text: string): boolean {
    try {
      for (const screen of this.#screens) if (screen.test(text)) return true;
    } catch {
      return true;
    }
    return false;
  }

  /** `text` with every secret replaced by `[REDACTED]` (the same string when there was none). */
  text(text: string): string {
    return this.matches(text) ? this.exact(text) : text;
  }

  /** As {@link Redactor.text}, without the screening test first. */
  exact(text: string): string {
    const marks = markSecrets(text, this.#scanners);
    return marks === undefined ? text : replaceMarked(text, marks);
  }

  /**
   * A JSON value with every string redacted (object keys are kept), and the string values of secret keys
   * replaced whole; the value itself, or the parts of it, where nothing changed.
   */
  json(value: unknown): unknown {
    if (typeof value !== 'object' || value === null)
      return typeof value === 'string' ? this.text(value) : value;
    // A flat object or array (structured content often is) has no object to meet twice: no Map for it.
    return this.#json(value, 0, hasObjectIn(value) ? new Map() : FLAT);
  }

  /** `seen`: each object's redacted copy (an object met again is not walked again), or `[REDACTED]` while
   * it is being walked (a cycle back to it). */
  #json(value: unknown, depth: number, seen: Seen): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return seen.get(value);
    if (depth >= MAX_JSON_DEPTH) return REDACTED;
    seen.set(value, REDACTED);
    let out: unknown[] | Record<string, unknown> | undefined;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const redacted = this.#json(item, depth + 1, seen);
        if (redacted !== item) (copy ??= value.slice())[i] = redacted;
      }
      out = copy;
    } else {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const item = record[key];
        const redacted =
          typeof item === 'string' && item !== '' && this.#secretKeys?.test(key)
            ? REDACTED
            : this.#json(item, depth + 1, seen);
        // defineProperty: a `__proto__` key of parsed JSON is an own property, not the prototype.
        if (redacted !== item)
          Object.defineProperty((out ??= { ...record }), key, {
            value: redacted,
            enumerable: true,
            writable: true,
            configurable: true,
          });
      }
    }
    seen.set(value, out ?? value);
    return out ?? value;
  }
}

/** What `Redactor.json` remembers of the objects it walked (see `#json`). */
interface Seen {
  has(object: object): boolean;
  get(object: object): unknown;
  set(object: object, copy: unknown): unknown;
}

/** The memory of a flat value's walk: its one object is met once, so nothing needs remembering. */
const FLAT: Seen = {
  has: () => false,
  get: () => undefined,
  set: () => FLAT,
};

/** Whether an object or array holds an object or array. */
function hasObjectIn(value: object): boolean {
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === 'object' && item !== null) return true;
    return false;
  }
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null) return true;
  }
  return false;
}

/** Redactors by pattern list (and secret keys), so the functions below compile a list once. */
const redactors = new WeakMap<readonly RegExp[], Map<RegExp | undefined, Redactor>>();

function redactorFor(patterns: readonly RegExp[], secretKeys?: RegExp): Redactor {
  let byKeys = redactors.get(patterns);
  if (byKeys === undefined) redactors.set(patterns, (byKeys = new Map<RegExp | undefined, Redactor>()));
  let redactor = byKeys.get(secretKeys);
  if (redactor === undefined) byKeys.set(secretKeys, (redactor = new Redactor(patterns, { secretKeys })));
  return redactor;
}

/** `text` with every match of `patterns` (default: `DEFAULT_SECRET_PATTERNS`) replaced by `[REDACTED]`. */
export function redactText(text: string, patterns: readonly RegExp[] = DEFAULT_SECRET_PATTERNS): string {
  return redactorFor(patterns).exact(text);
}

/**
 * A JSON value with every string redacted (object keys are kept); the input is not changed. With
 * `secretKeys`, the string values of keys that name a secret (`password`, `token`, …) are replaced whole.
 */
export function redactJson(value: unknown, patterns: readonly RegExp[], secretKeys?: RegExp): unknown {
  return redactorFor(patterns, secretKeys).json(value);
}
