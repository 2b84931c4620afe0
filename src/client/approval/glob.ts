/**
 * Glob patterns of approval rules: `*` matches any run of characters (dots included), `?` one character,
 * everything else itself. `fs.*` matches `fs.read` and `fs.dir.list`; `*_delete` matches `file_delete`.
 *
 * The names matched are the peer's (a server's `serverInfo.name`, its tool names), so matching must not
 * backtrack: a pattern is split at its stars into literal pieces (`?` matching any one character), the
 * first piece must start the name, the last must end it, and each piece between is found at its leftmost
 * place after the one before (leftmost is always right when only stars separate the pieces). Every
 * position of the name is tried as the start of at most one piece, and a try costs at most that piece's
 * length: O(n·k) for a name of n characters and a longest piece of k, whatever the number of stars (a
 * regexp's backtracking was O(n^stars)). Names need no length cap for it; a cap would also have to choose
 * between a deny rule that no longer matches and a rule that matches a name it should not.
 * @module
 */

/** A pattern cut at its stars; `pieces.length` is the number of stars plus one. */
interface Compiled {
  pieces: readonly string[];
  /** The sum of the pieces' lengths: the shortest name that can match. */
  minLength: number;
}

/** Compiled patterns, oldest first; patterns come from configuration, but the function is public. */
const cache = new Map<string, Compiled>();
const CACHE_LIMIT = 256;

/** Whether `name` matches the glob `pattern` as a whole (case-sensitive). */
export function matchGlob(pattern: string, name: string): boolean {
  const { pieces, minLength } = compiled(pattern);
  if (name.length < minLength) return false;
  const first = pieces[0] ?? '';
  if (pieces.length === 1) return name.length === first.length && matchesAt(first, name, 0);
  const last = pieces[pieces.length - 1] ?? '';
  const end = name.length - last.length;
  if (!matchesAt(first, name, 0) || !matchesAt(last, name, end)) return false;
  let at = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i] ?? '';
    const found = indexOfPiece(piece, name, at, end);
    if (found < 0) return false;
    at = found + piece.length;
  }
  return true;
}

function compiled(pattern: string): Compiled {
  let known = cache.get(pattern);
  if (!known) {
    const pieces = pattern.split('*');
    known = { pieces, minLength: pieces.reduce((sum, piece) => sum + piece.length, 0) };
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value ?? '');
    cache.set(pattern, known);
  }
  return known;
}

/** Where `piece` first matches in `name` at or after `from`, ending at or before `end`; -1 when nowhere. */
function indexOfPiece(piece: string, name: string, from: number, end: number): number {
  if (!piece.includes('?')) {
    const found = name.indexOf(piece, from);
    return found >= 0 && found + piece.length <= end ? found : -1;
  }
  for (let at = from; at + piece.length <= end; at++) if (matchesAt(piece, name, at)) return at;
  return -1;
}

/** Whether `piece` (`?` matching any one character) matches `name` at `at`; the caller checks the length. */
function matchesAt(piece: string, name: string, at: number): boolean {
  for (let i = 0; i < piece.length; i++) {
    const char = piece.charCodeAt(i);
    if (char !== 63 /* ? */ && char !== name.charCodeAt(at + i)) return false;
  }
  return true;
}
