/**
 * The regular expressions of JSON Schemas, run in linear time by re2js (a pure JavaScript RE2) instead of
 * the backtracking `RegExp`: `pattern: "^(a+)+$"` against 31 bytes took a backtracking engine 16 s, during
 * which nothing else ran and no timeout could fire.
 *
 * re2js is loaded on first use (≈6 ms, a tenth of a stdio server's cold start, which most schemas never
 * need): synchronously through `process.getBuiltinModule` where the runtime has it (Node.js ≥ 20.16, Bun,
 * Deno); elsewhere it is imported in the background from the first pattern on, and a pattern compiles when
 * it first runs.
 * @module
 */
import type { Options } from 'ajv';
import type * as Re2 from 're2js';
import { keepNewest } from '../protocol/keep-newest.js';
import { PatternSyntaxError, translatePattern } from './ecma-pattern.js';

type Re2Module = typeof Re2;

let engine: Re2Module | undefined;
let importing: Promise<unknown> | undefined;

/** re2js when it can be had now; otherwise undefined (and its import is under way). */
function loadEngine(): Re2Module | undefined {
  if (engine) return engine;
  // Not in a browser, nor before Node.js 20.16: there, the import below.
  const host = globalThis.process as Partial<Pick<NodeJS.Process, 'getBuiltinModule'>> | undefined;
  if (typeof host?.getBuiltinModule === 'function') {
    const { createRequire } = host.getBuiltinModule('node:module');
    engine = createRequire(import.meta.url)('re2js') as Re2Module;
    return engine;
  }
  importing ??= import('re2js').then((module) => (engine = module));
  return undefined;
}

/** Compiles RE2 syntax; an error of re2js becomes a PatternSyntaxError with its reason. */
function compileRe2(re2: Re2Module, source: string): Re2.RE2JS {
  try {
    return re2.RE2JS.compile(source);
  } catch (error) {
    const reason =
      error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    throw new PatternSyntaxError(reason);
  }
}

/**
 * A pattern that matches like `RegExp.prototype.test` (unanchored, ECMA-262 meaning) in linear time. Its
 * `toString()` is `/source/`, which ajv uses to tell patterns apart.
 */
export class LinearRegExp {
  readonly source: string;
  readonly flags: '' | 'i';
  readonly #re2: string;
  #compiled: Re2.RE2JS | undefined;

  /**
   * @param flags `i` for a case-insensitive match; the `u` meaning is always taken.
   * @throws {PatternSyntaxError} when the pattern is invalid or cannot run in linear time.
   */
  constructor(source: string, flags: '' | 'i' = '') {
    this.source = source;
    this.flags = flags;
    this.#re2 = (flags === 'i' ? '(?i)' : '') + translatePattern(source);
    const re2 = loadEngine();
    if (re2) this.#compiled = compileRe2(re2, this.#re2);
  }

  test(input: string): boolean {
    if (!this.#compiled) {
      const re2 = loadEngine();
      if (!re2) throw new Error(`the linear-time regular expression engine (re2js) is still loading`);
      this.#compiled = compileRe2(re2, this.#re2);
    }
    return this.#compiled.test(input);
  }

  toString(): string {
    return `/${this.source}/${this.flags}`;
  }
}

/** The bound of the pattern cache (patterns repeat across schemas: zod's email, uuid, …). */
const CACHE_SIZE = 1000;
const cache = new Map<string, LinearRegExp>();

/**
 * The linear-time regular expression for an ECMA-262 pattern, compiled once per distinct pattern.
 *
 * @throws {PatternSyntaxError} when the pattern is invalid or cannot run in linear time.
 */
export function linearRegExp(source: string): LinearRegExp {
  let regExp = cache.get(source);
  if (regExp) return regExp;
  try {
    regExp = new LinearRegExp(source);
  } catch (error) {
    if (error instanceof PatternSyntaxError) error.pattern = source;
    throw error;
  }
  cache.set(source, regExp);
  keepNewest(cache, CACHE_SIZE);
  return regExp;
}

type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

/**
 * ajv's `code.regExp` option: every `pattern` and `patternProperties` key compiles through here. The flags
 * ajv passes (`u`) are the meaning `translatePattern` gives every pattern.
 */
export const linearRegExpEngine: RegExpEngine = Object.assign((source: string) => linearRegExp(source), {
  code: 'linearRegExp',
});

/** Unicode property names re2js knows, found so far (a finite set). */
const knownProperties = new Set<string>();

/**
 * Whether `value` is a regular expression toolwire runs (`format: "regex"`), decided in linear time and
 * without compiling it: valid ECMA-262 syntax without backreferences or lookaround.
 */
export function isLinearPattern(value: string): boolean {
  let re2Source: string;
  try {
    re2Source = translatePattern(value);
  } catch {
    return false;
  }
  // The one thing the translation cannot tell alone: whether RE2 knows a `\p{…}` name.
  for (const [, name] of re2Source.matchAll(/\\[pP]\{([A-Za-z_]+)\}/g)) {
    if (name === undefined || knownProperties.has(name)) continue;
    const re2 = loadEngine();
    if (!re2) return false;
    try {
      re2.RE2JS.compile(`\\p{${name}}`);
    } catch {
      return false;
    }
    knownProperties.add(name);
  }
  return true;
}
