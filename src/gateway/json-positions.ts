/**
 * Where values sit in JSON text: the line and column of the value each JSON Pointer (RFC 6901, as a
 * validation issue's `path` has it) names, so that a configuration problem can say where in the file it is.
 * One pass over the text, descending only into the members the pointers name (recursion as deep as the
 * deepest pointer, the rest skipped by a flat scan): time linear in the text and the pointers. A member
 * named twice is found where its last occurrence is, the one `JSON.parse` keeps.
 * @module
 */

/** A place in text: line and column, 1-based, the column in UTF-16 code units. */
export interface TextPosition {
  line: number;
  column: number;
}

/** The pointers that end at a value, and the members to descend into towards others. */
interface Wanted {
  pointers: string[];
  members: Map<string, Wanted>;
}

function wanted(): Wanted {
  return { pointers: [], members: new Map() };
}

/** The pointers as a tree of member names (`~1` is `/`, `~0` is `~`); a pointer that is no pointer is left out. */
function wantedTree(pointers: readonly string[]): Wanted {
  const root = wanted();
  for (const pointer of pointers) {
    if (pointer !== '' && !pointer.startsWith('/')) continue;
    let node = root;
    if (pointer !== '') {
      for (const segment of pointer.slice(1).split('/')) {
        const name = segment.replaceAll('~1', '/').replaceAll('~0', '~');
        let next = node.members.get(name);
        if (!next) node.members.set(name, (next = wanted()));
        node = next;
      }
    }
    node.pointers.push(pointer);
  }
  return root;
}

const QUOTE = 34;
const BACKSLASH = 92;

/** A scan of JSON text that `JSON.parse` accepted. */
class Scan {
  index = 0;
  readonly offsets = new Map<string, number>();

  constructor(readonly text: string) {}

  #space(): void {
    const { text } = this;
    while (this.index < text.length && ' \t\n\r'.includes(text.charAt(this.index))) this.index++;
  }

  /** Past the string that starts at `index`; its text, with the quotes. */
  #string(): string {
    const { text } = this;
    const start = this.index;
    for (this.index++; this.index < text.length; this.index++) {
      const code = text.charCodeAt(this.index);
      if (code === BACKSLASH) this.index++;
      else if (code === QUOTE) break;
    }
    this.index++;
    return text.slice(start, this.index);
  }

  /** Past the value that starts at `index`, whatever it holds, without descending: a flat scan. */
  #skip(): void {
    const { text } = this;
    let depth = 0;
    while (this.index < text.length) {
      const char = text.charAt(this.index);
      if (char === '"') {
        this.#string();
        if (depth === 0) return;
        continue;
      }
      if (char === '{' || char === '[') depth++;
      else if (char === '}' || char === ']') {
        if (depth === 0) return; // the end of the container holding a number, true, false or null
        depth--;
        if (depth === 0) {
          this.index++;
          return;
        }
      } else if (depth === 0 && (char === ',' || ' \t\n\r'.includes(char))) return;
      this.index++;
    }
  }

  /** Past the value that starts after any space at `index`, noting where each value `node` wants is. */
  value(node: Wanted): void {
    this.#space();
    for (const pointer of node.pointers) this.offsets.set(pointer, this.index);
    const open = this.text.charAt(this.index);
    if (node.members.size === 0 || (open !== '{' && open !== '[')) return this.#skip();
    this.index++;
    for (let item = 0; ; item++) {
      this.#space();
      const next = this.text.charAt(this.index);
      if (next === '}' || next === ']' || next === '') break;
      let name = String(item);
      if (open === '{') {
        name = JSON.parse(this.#string()) as string;
        this.#space();
        this.index++; // the colon
      }
      const member = node.members.get(name);
      if (member) this.value(member);
      else {
        this.#space();
        this.#skip();
      }
      this.#space();
      if (this.text.charAt(this.index) === ',') this.index++;
    }
    this.index++;
  }
}

/**
 * The position of the value at each of `pointers` in `text` (valid JSON); a pointer to no value in it
 * (a member the text does not have) is not in the map.
 */
export function jsonPositions(text: string, pointers: readonly string[]): Map<string, TextPosition> {
  const scan = new Scan(text);
  scan.value(wantedTree(pointers));
  const offsets = [...new Set(scan.offsets.values())].sort((a, b) => a - b);
  const at = new Map<number, TextPosition>();
  let line = 1;
  let lineStart = 0;
  let index = 0;
  for (const offset of offsets) {
    for (; index < offset; index++) {
      if (text.charCodeAt(index) === 10) {
        line++;
        lineStart = index + 1;
      }
    }
    at.set(offset, { line, column: offset - lineStart + 1 });
  }
  const positions = new Map<string, TextPosition>();
  for (const [pointer, offset] of scan.offsets) positions.set(pointer, at.get(offset)!);
  return positions;
}
