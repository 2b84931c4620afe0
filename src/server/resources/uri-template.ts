/**
 * RFC 6570 URI templates, level 1 plus reserved expansion (`file:///{dir}/{name}`, `file://{+path}`):
 * enough to address a family of resources. Each `{variable}` matches one path segment (`[^/]+`); a
 * `{+variable}` matches any non-empty text, slashes included. Values are percent-decoded; expansion
 * percent-encodes everything outside the unreserved set (and, for `{+x}`, outside the reserved set too).
 * Other operators (`{?q}`, `{#x}`, …), modifiers and variable lists are refused.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import { ServerError } from '../server-error.js';

const EXPRESSION = /\{([^{}]*)\}/g;
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export class UriTemplate {
  readonly template: string;
  /** The variable names, in order of appearance. */
  readonly variables: readonly string[];
  readonly #literals: readonly string[];
  readonly #reserved: readonly boolean[];
  readonly #pattern: RegExp;

  /** Throws a ServerError for a template that is not level 1. */
  constructor(template: string) {
    const invalid = (why: string) =>
      new ServerError(LocalErrorCode.InvalidDefinition, `Invalid URI template "${template}": ${why}`);
    const variables: string[] = [];
    const reserved: boolean[] = [];
    const literals: string[] = [];
    let last = 0;
    for (const match of template.matchAll(EXPRESSION)) {
      const expression = match[1] ?? '';
      const plus = expression.startsWith('+');
      const name = plus ? expression.slice(1) : expression;
      if (!VARNAME.test(name)) {
        throw invalid(`{${expression}} is not supported (only {name} and {+name})`);
      }
      reserved.push(plus);
      if (variables.includes(name)) throw invalid(`the variable "${name}" appears twice`);
      literals.push(template.slice(last, match.index));
      variables.push(name);
      last = match.index + match[0].length;
    }
    literals.push(template.slice(last));
    if (literals.some((literal) => /[{}]/.test(literal))) throw invalid('unbalanced braces');
    this.template = template;
    this.variables = Object.freeze(variables);
    this.#literals = Object.freeze(literals);
    this.#reserved = Object.freeze(reserved);
    let source = escapeRegExp(literals[0] ?? '');
    for (const [i, plus] of reserved.entries())
      source += (plus ? '(.+)' : '([^/]+)') + escapeRegExp(literals[i + 1] ?? '');
    this.#pattern = new RegExp(`^${source}$`);
  }

  /** Whether `text` contains a template expression at all (a plain URI does not). */
  static isTemplate(text: string): boolean {
    return /\{[^{}]*\}/.test(text);
  }

  /** The decoded variable values when `uri` matches, else undefined. */
  match(uri: string): Record<string, string> | undefined {
    const found = this.#pattern.exec(uri);
    if (!found) return undefined;
    const entries: [string, string][] = [];
    for (const [i, name] of this.variables.entries()) {
      try {
        entries.push([name, decodeURIComponent(found[i + 1] ?? '')]);
      } catch {
        return undefined; // malformed percent-encoding
      }
    }
    return Object.fromEntries(entries);
  }

  /** The URI for these values (a missing value expands to nothing, as RFC 6570 says). */
  expand(values: Readonly<Record<string, string>>): string {
    let uri = this.#literals[0] ?? '';
    for (const [i, name] of this.variables.entries()) {
      const value = Object.hasOwn(values, name) ? values[name] : undefined;
      const encoded = value === undefined ? '' : this.#reserved[i] ? encodeURI(value) : encodeValue(value);
      uri += encoded + (this.#literals[i + 1] ?? '');
    }
    return uri;
  }

  toString(): string {
    return this.template;
  }
}
