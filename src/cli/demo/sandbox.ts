/**
 * The demo's security core: every path a tool receives is resolved against the workspace root and
 * refused when it escapes it — lexically (`..`, absolute paths elsewhere) or through symbolic links
 * (the real path of the deepest existing ancestor must stay inside the root's real path).
 *
 * Tools then operate on the *resolved real path*, never on the path as given, so a symlink inside
 * the root is followed only after its target was checked. A dangling symlink is refused outright
 * (writing through it could create a file anywhere). What remains is the usual check-then-use race
 * against a concurrent process that swaps a directory for a symlink; the demo accepts it.
 * @module
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';

/** A path was refused; tools turn it into an `isError` result. */
export class SandboxError extends Error {
  override name = 'SandboxError';
}

export interface ResolvedPath {
  /** The absolute path to operate on: symlinks of its existing part resolved. */
  readonly absolute: string;
  /** The same path relative to the root, with `/` separators; `.` for the root itself. */
  readonly relative: string;
}

/** Whether `child` is `parent` or inside it (both absolute and normalized). */
export function isWithin(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

export class Sandbox {
  /** The root as given, made absolute. */
  readonly root: string;
  #realRoot: Promise<string> | undefined;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The root's real path (resolved once). */
  realRoot(): Promise<string> {
    this.#realRoot ??= realpath(this.root);
    return this.#realRoot;
  }

  /** `absolute` relative to the root, for display (`/` separators, `.` for the root). */
  async display(absolute: string): Promise<string> {
    const rel = path.relative(await this.realRoot(), absolute);
    return rel === '' ? '.' : rel.split(path.sep).join('/');
  }

  /**
   * Resolves a user-supplied path (relative to the root, or absolute inside it).
   * Throws SandboxError when it escapes the root; the target need not exist.
   */
  async resolve(input: string): Promise<ResolvedPath> {
    if (typeof input !== 'string') throw new SandboxError('The path must be a string');
    if (input.includes('\0')) throw new SandboxError('The path contains a NUL character');
    const realRoot = await this.realRoot();
    const candidate = path.resolve(this.root, input === '' ? '.' : input);

    // Lexical check, against the root as given and as its real path (an absolute path may use either).
    let lexical: string;
    if (isWithin(this.root, candidate)) lexical = path.join(realRoot, path.relative(this.root, candidate));
    else if (isWithin(realRoot, candidate)) lexical = candidate;
    else throw new SandboxError(`"${input}" is outside the workspace root`);

    // Real check: resolve the deepest existing ancestor, then re-append the missing tail.
    const tail: string[] = [];
    let existing = lexical;
    let real: string;
    for (;;) {
      try {
        real = await realpath(existing);
        break;
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ELOOP') throw new SandboxError(`"${input}" goes through a symbolic link loop`);
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
        const link = await lstat(existing).catch(() => undefined);
        if (link?.isSymbolicLink()) {
          throw new SandboxError(`"${input}" goes through a symbolic link whose target does not exist`);
        }
        const parent = path.dirname(existing);
        if (parent === existing || !isWithin(realRoot, parent)) throw error;
        tail.unshift(path.basename(existing));
        existing = parent;
      }
    }
    const absolute = path.join(real, ...tail);
    if (!isWithin(realRoot, absolute)) {
      throw new SandboxError(`"${input}" resolves (through a symbolic link) outside the workspace root`);
    }
    return { absolute, relative: await this.display(absolute) };
  }
}
