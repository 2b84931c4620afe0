// A `globSync` for the conformance suite on Node 20 (Node 22 has fs.globSync): scripts/conformance.mjs
// runs a copy of the suite's bundle that imports it from here instead of from `fs` (see suiteEntry()).
// The suite calls `globSync('**/checks.json', { cwd })`; this one takes patterns made of `**`, `*`, `?`
// and literal characters, relative to `cwd`, and returns the matching paths relative to it, as Node 22's
// does (dot entries are matched only by a pattern segment that starts with a dot). Symbolic links are
// matched but never followed (Node 22 follows some: no results folder has any). Any other syntax or
// option throws rather than match differently.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const GLOBSTAR = Symbol('**');
const OPTIONS = new Set(['cwd']);

/** One pattern segment: GLOBSTAR or a RegExp for one name. */
function segment(text, pattern) {
  if (text === '**') return GLOBSTAR;
  if (/[[\]{}()!+@\\]/.test(text))
    throw new Error(`globSync (scripts/conformance/glob-sync.mjs): unsupported pattern ${pattern}`);
  const source = [...text]
    .map((char) => (char === '*' ? '[^/]*' : char === '?' ? '[^/]' : char.replace(/[.^$|]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

function entries(dir) {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // not a directory, gone, or unreadable: nothing matches below it
  }
}

/**
 * @param {string | string[]} patterns
 * @param {{ cwd?: string | URL }} [options]
 * @returns {string[]}
 */
export function globSync(patterns, options = {}) {
  for (const key of Object.keys(options))
    if (!OPTIONS.has(key))
      throw new Error(`globSync (scripts/conformance/glob-sync.mjs): unsupported option ${key}`);
  const cwd = options.cwd instanceof URL ? fileURLToPath(options.cwd) : (options.cwd ?? process.cwd());
  const found = new Set();
  for (const pattern of Array.isArray(patterns) ? patterns : [patterns]) {
    if (typeof pattern !== 'string' || pattern === '' || path.isAbsolute(pattern))
      throw new Error(`globSync (scripts/conformance/glob-sync.mjs): unsupported pattern ${String(pattern)}`);
    const parts = pattern.split('/');
    if (parts.includes(''))
      throw new Error(`globSync (scripts/conformance/glob-sync.mjs): unsupported pattern ${pattern}`);
    const segments = parts.map((part) => segment(part, pattern));
    const walk = (relative, index) => {
      if (index === segments.length) {
        found.add(relative === '' ? '.' : relative);
        return;
      }
      const current = segments[index];
      const dir = path.join(cwd, relative);
      if (current === GLOBSTAR) {
        walk(relative, index + 1); // no directory
        for (const entry of entries(dir)) {
          if (entry.name.startsWith('.')) continue;
          const next = path.join(relative, entry.name);
          if (entry.isDirectory()) walk(next, index);
          else if (index === segments.length - 1) found.add(next); // a trailing ** matches files too
        }
        return;
      }
      const dotAllowed = parts[index].startsWith('.');
      for (const entry of entries(dir)) {
        if (!current.test(entry.name) || (entry.name.startsWith('.') && !dotAllowed)) continue;
        if (index === segments.length - 1) found.add(path.join(relative, entry.name));
        else if (entry.isDirectory()) walk(path.join(relative, entry.name), index + 1);
      }
    };
    walk('', 0);
  }
  return [...found];
}
