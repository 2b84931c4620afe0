/**
 * Follows a configuration file: calls `changed` shortly after its content changes (editors write a new
 * file and rename it over the old one, so the folder is watched, not the file), once per burst of writes.
 * @module
 */
import { watch, readFileSync, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Writes within this window are one change. */
const SETTLE_MS = 100;

/**
 * Calls `changed` when the file's content changed, and `removed` when it is gone (once, until it is back;
 * its return is a change).
 */
export function watchConfigFile(path: string, changed: () => void, removed?: () => void): { close(): void } {
  const name = basename(path);
  let last = read(path);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
      if (file !== null && file !== name) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        const now = read(path);
        if (now === last) return;
        last = now;
        if (now === undefined) removed?.();
        else changed();
      }, SETTLE_MS);
    });
  } catch {
    // a folder that cannot be watched: the configuration stays as it was loaded
  }
  return {
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
