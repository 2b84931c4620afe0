/**
 * Glob patterns of approval rules: `*` matches any run of characters (dots included), `?` one character,
 * everything else itself. `fs.*` matches `fs.read` and `fs.dir.list`; `*_delete` matches `file_delete`.
 * @module
 */

const cache = new Map<string, RegExp>();

/** Whether `name` matches the glob `pattern` as a whole (case-sensitive). */
export function matchGlob(pattern: string, name: string): boolean {
  let regexp = cache.get(pattern);
  if (!regexp) {
    const source = [...pattern]
      .map((char) => {
        if (char === '*') return '.*';
        if (char === '?') return '.';
        return char.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
      })
      .join('');
    regexp = new RegExp(`^${source}$`, 's');
    cache.set(pattern, regexp);
  }
  return regexp.test(name);
}
