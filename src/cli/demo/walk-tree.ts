/**
 * Walks a directory of the workspace, depth first, in name order. Symbolic links are followed only
 * when their target stays inside the root (others are skipped silently), and never recursed into,
 * so the walk cannot loop or leave the workspace.
 * @module
 */
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Sandbox } from './sandbox.js';

export interface TreeEntry {
  /** Relative to the root, `/` separators. */
  path: string;
  /** The real absolute path. */
  absolute: string;
  type: 'file' | 'directory';
  /** Bytes for files, 0 for directories. */
  size: number;
}

export interface WalkOptions {
  /** Descend into subdirectories (default false). */
  recursive?: boolean;
  /** Stop early when aborted. */
  signal?: AbortSignal;
}

/** Directories listed but not descended into by recursive walks. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/** Yields the entries under `directory` (a real absolute path inside the sandbox), not itself. */
export async function* walkTree(
  sandbox: Sandbox,
  directory: string,
  options: WalkOptions = {},
): AsyncGenerator<TreeEntry> {
  let names: string[];
  try {
    names = (await readdir(directory)).sort();
  } catch {
    return; // unreadable (permissions, removed meanwhile): nothing to list
  }
  for (const name of names) {
    if (options.signal?.aborted) return;
    const entry = await describeEntry(sandbox, path.join(directory, name));
    if (!entry) continue;
    yield entry.entry;
    if (
      options.recursive &&
      entry.entry.type === 'directory' &&
      !entry.link &&
      !SKIPPED_DIRECTORIES.has(name)
    ) {
      yield* walkTree(sandbox, entry.entry.absolute, options);
    }
  }
}

async function describeEntry(
  sandbox: Sandbox,
  absolute: string,
): Promise<{ entry: TreeEntry; link: boolean } | undefined> {
  try {
    const info = await lstat(absolute);
    if (info.isSymbolicLink()) {
      const target = await sandbox.resolve(absolute); // throws when it escapes the root or dangles
      const real = await stat(target.absolute);
      if (!real.isFile() && !real.isDirectory()) return undefined;
      const type = real.isFile() ? 'file' : 'directory';
      const entry = {
        path: await sandbox.display(absolute),
        absolute: target.absolute,
        type,
        size: real.isFile() ? real.size : 0,
      } as const;
      return { entry, link: true };
    }
    if (!info.isFile() && !info.isDirectory()) return undefined; // sockets, FIFOs, devices
    const type = info.isFile() ? 'file' : 'directory';
    return {
      entry: { path: await sandbox.display(absolute), absolute, type, size: info.isFile() ? info.size : 0 },
      link: false,
    };
  } catch {
    return undefined; // escapes the root, dangles, vanished meanwhile, or unreadable: skipped
  }
}
