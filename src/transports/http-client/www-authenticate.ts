/**
 * `WWW-Authenticate` (RFC 7235 §4.1, RFC 6750 §3): the challenges of a 401 or 403, parsed — each a scheme
 * with either a token68 or `name=value` parameters, values plain tokens or quoted strings with `\`
 * escapes, several challenges separated by commas. And what a Bearer challenge tells an MCP client
 * (RFC 9728): the error, its description, the scope to ask for, where the resource metadata is.
 * @module
 */

export interface AuthChallenge {
  /** Lower-cased, e.g. `bearer`. */
  scheme: string;
  /** Parameter names lower-cased; the first of a repeated name wins. */
  params: Record<string, string>;
  token68?: string;
}

/** What a Bearer challenge says (the fields are absent when the server did not send them). */
export interface BearerChallenge {
  error?: string;
  errorDescription?: string;
  scope?: string;
  resourceMetadata?: string;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;
const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*/;

/** Every challenge of a `WWW-Authenticate` value; what cannot be parsed ends the list. */
export function parseWwwAuthenticate(header: string): AuthChallenge[] {
  const challenges: AuthChallenge[] = [];
  let rest = header;
  const skip = (pattern: RegExp) => {
    rest = rest.replace(pattern, '');
  };
  skip(/^[\s,]+/);
  while (rest.length > 0) {
    const scheme = TOKEN.exec(rest)?.[0];
    if (!scheme) break;
    rest = rest.slice(scheme.length);
    const challenge: AuthChallenge = { scheme: scheme.toLowerCase(), params: {} };
    challenges.push(challenge);
    skip(/^[ \t]+/);
    // A token68 is followed by the end or a comma, never by `=` and a value.
    const token68 = TOKEN68.exec(rest)?.[0];
    if (token68 && /^[ \t]*(,|$)/.test(rest.slice(token68.length))) {
      challenge.token68 = token68;
      rest = rest.slice(token68.length);
      skip(/^[\s,]+/);
      continue;
    }
    for (;;) {
      const name = TOKEN.exec(rest)?.[0];
      const afterName = name ? rest.slice(name.length).replace(/^[ \t]*/, '') : '';
      if (!name || !afterName.startsWith('=')) break; // the next challenge's scheme
      rest = afterName.slice(1).replace(/^[ \t]*/, '');
      let value: string;
      if (rest.startsWith('"')) {
        let i = 1;
        value = '';
        while (i < rest.length && rest[i] !== '"') {
          if (rest[i] === '\\' && i + 1 < rest.length) i++;
          value += rest[i];
          i++;
        }
        rest = rest.slice(i + 1);
      } else {
        value = TOKEN.exec(rest)?.[0] ?? '';
        rest = rest.slice(value.length);
      }
      const key = name.toLowerCase();
      if (!(key in challenge.params)) challenge.params[key] = value;
      skip(/^[ \t]*/);
      if (!rest.startsWith(',')) break;
      skip(/^[\s,]+/);
    }
    skip(/^[\s,]+/);
  }
  return challenges;
}

/** The Bearer challenge of a `WWW-Authenticate` value, if there is one. */
export function bearerChallenge(header: string | null): BearerChallenge | undefined {
  if (!header) return undefined;
  const bearer = parseWwwAuthenticate(header).find((challenge) => challenge.scheme === 'bearer');
  if (!bearer) return undefined;
  const {
    error,
    error_description: errorDescription,
    scope,
    resource_metadata: resourceMetadata,
  } = bearer.params;
  return {
    ...(error === undefined ? {} : { error }),
    ...(errorDescription === undefined ? {} : { errorDescription }),
    ...(scope === undefined ? {} : { scope }),
    ...(resourceMetadata === undefined ? {} : { resourceMetadata }),
  };
}
