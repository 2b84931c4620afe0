/**
 * Secret redaction: patterns for the credentials that most often leak into tool output and logs, and
 * the functions that replace their matches with `[REDACTED]` in text and in any JSON value. Patterns
 * that name the secret (`api_key=…`, `Bearer …`) keep the name and replace only the value.
 * @module
 */

export const REDACTED = '[REDACTED]';

/**
 * The default patterns, by name. Extend them with your own: `[...Object.values(SECRET_PATTERNS), /mine/g]`.
 * Every pattern is matched globally (a missing `g` flag is added).
 */
export const SECRET_PATTERNS = Object.freeze({
  /** PEM private keys (RSA, EC, DSA, OpenSSH, encrypted PKCS#8), header to footer. */
  privateKey:
    /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g,
  /** AWS access key ids (long-term AKIA…, temporary ASIA…). */
  awsAccessKeyId: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /** GitHub tokens: personal (classic and fine-grained), OAuth, app and refresh tokens. */
  githubToken: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g,
  /** Slack tokens. */
  slackToken: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /** Stripe live secret and restricted keys. */
  stripeKey: /\b[rs]k_live_[A-Za-z0-9]{16,}\b/g,
  /** Google API keys. */
  googleApiKey: /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /** `sk-…` keys of model providers (OpenAI, Anthropic). */
  providerKey: /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/g,
  /** JWTs (three base64url parts, the first two JSON objects). */
  jwt: /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g,
  /**
   * The credential after `Bearer` or `Basic`: 8+ token characters with a digit or a lower-upper pair
   * (`dX`), which prose after the word "Bearer" rarely has.
   */
  authorizationValue:
    /(?<=\b(?:Bearer|Basic)\s+)(?=[A-Za-z0-9\-._~+/]*(?:[0-9]|[a-z][A-Z]))[A-Za-z0-9\-._~+/]{8,}=*/g,
  /** The value (6+ characters) of `api_key=…`, `"password": "…"`, `CLIENT_SECRET: …` and the like. */
  namedSecret:
    /(?<=(?:api[_-]?key|secret(?:[_-]?key)?|token|passw(?:or)?d|pwd)["']?\s*[:=]\s*["']?)[^\s"'&,;]{6,}/gi,
} satisfies Record<string, RegExp>);

/** The default patterns as a list. */
export const DEFAULT_SECRET_PATTERNS: readonly RegExp[] = Object.freeze(Object.values(SECRET_PATTERNS));

/** The patterns, each with the `g` flag (so `replace` replaces every match). */
export function globalPatterns(patterns: readonly RegExp[]): RegExp[] {
  return patterns.map((p) => (p.global ? p : new RegExp(p.source, `${p.flags}g`)));
}

/** `text` with every match of `patterns` replaced by `[REDACTED]`. */
export function redactText(text: string, patterns: readonly RegExp[]): string {
  let out = text;
  for (const pattern of patterns) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, REDACTED);
  }
  return out;
}

/** Object keys whose string values are secrets whatever they look like (for logs: arguments). */
export const SECRET_KEY =
  /pass(?:word|wd|phrase)?$|secret|token|api[_-]?key|authorization|cookie|credential|private[_-]?key/i;

/**
 * A copy of a JSON value with every string redacted (object keys are kept). With `secretKeys`, the
 * string values of keys that name a secret (`password`, `token`, …) are replaced whole.
 */
export function redactJson(value: unknown, patterns: readonly RegExp[], secretKeys?: RegExp): unknown {
  if (typeof value === 'string') return redactText(value, patterns);
  if (Array.isArray(value)) return value.map((item) => redactJson(item, patterns, secretKeys));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] =
        secretKeys && typeof item === 'string' && secretKeys.test(key)
          ? REDACTED
          : redactJson(item, patterns, secretKeys);
    }
    return out;
  }
  return value;
}

/**
 * For each default pattern, a literal every match of it contains (same flags): a text without any of
 * them cannot match, and literals are screened several times faster than the patterns themselves.
 */
const HINTS = new Map<RegExp, string>([
  [SECRET_PATTERNS.privateKey, '-----BEGIN '],
  [SECRET_PATTERNS.awsAccessKeyId, 'AKIA|ASIA'],
  [SECRET_PATTERNS.githubToken, 'gh[pousr]_|github_pat_'],
  [SECRET_PATTERNS.slackToken, 'xox'],
  [SECRET_PATTERNS.stripeKey, 'k_live_'],
  [SECRET_PATTERNS.googleApiKey, 'AIza'],
  [SECRET_PATTERNS.providerKey, 'sk-'],
  [SECRET_PATTERNS.jwt, 'eyJ'],
  [SECRET_PATTERNS.authorizationValue, 'Bearer|Basic'],
  [SECRET_PATTERNS.namedSecret, 'api|secret|token|passw|pwd'],
]);

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
 * screened by its literal hint.
 */
function screensFor(patterns: readonly RegExp[]): RegExp[] {
  const groups = new Map<string, string[]>();
  const screens: RegExp[] = [];
  for (const pattern of patterns) {
    const flags = pattern.flags.replace(/[gy]/g, '');
    const screen = HINTS.get(pattern) ?? pattern.source;
    if (!combinable(pattern)) screens.push(new RegExp(screen, flags));
    else groups.set(flags, [...(groups.get(flags) ?? []), screen]);
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

/**
 * Redaction compiled once for a list of patterns. A text none of them matches is returned as is after
 * one screening test per set of flags; one that some pattern matches is redacted exactly as
 * {@link redactText} does (each pattern in turn). {@link Redactor.json} copies only what it changes.
 */
export class Redactor {
  readonly patterns: readonly RegExp[];
  readonly #screens: readonly RegExp[];

  constructor(patterns: readonly RegExp[]) {
    this.patterns = globalPatterns(patterns);
    this.#screens = screensFor(this.patterns);
  }

  /** Whether there is anything to redact with. */
  get active(): boolean {
    return this.patterns.length > 0;
  }

  /** Whether some pattern matches `text`. */
  matches(text: string): boolean {
    for (const screen of this.#screens) if (screen.test(text)) return true;
    return false;
  }

  /** `text` with every match replaced by `[REDACTED]` (the same string when nothing matched). */
  text(text: string): string {
    return this.matches(text) ? redactText(text, this.patterns) : text;
  }

  /** A JSON value with every string redacted; the value itself (or a part of it) where nothing changed. */
  json(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const redacted = this.json(item);
        if (redacted !== item) (out ??= value.slice())[i] = redacted;
      }
      return out ?? value;
    }
    if (typeof value === 'object' && value !== null) {
      let out: Record<string, unknown> | undefined;
      for (const [key, item] of Object.entries(value)) {
        const redacted = this.json(item);
        // defineProperty: a `__proto__` key of parsed JSON is an own property, not the prototype.
        if (redacted !== item)
          Object.defineProperty((out ??= { ...value }), key, {
            value: redacted,
            enumerable: true,
            writable: true,
            configurable: true,
          });
      }
      return out ?? value;
    }
    return value;
  }
}
