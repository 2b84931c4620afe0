/**
 * Loads the server that a module exports as its default export: a toolwire `Server`, or a
 * (possibly async) function that returns one. Every failure is a usage error (exit 2) that
 * says what is wrong with the module.
 * @module
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorMessage } from '../protocol/index.js';
import { Server, type RateLimitStore, type TaskStore } from '../server/index.js';
import { helpHint } from './command-name.js';
import { usageError } from './exit-code.js';

const HINT = helpHint('serve');

/**
 * Whether `value` is a toolwire Server. Duck-typed as well, so a server built with another copy of
 * toolwire (another install) is accepted.
 */
export function isServer(value: unknown): value is Server {
  if (value instanceof Server) return true;
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<'connect' | 'tool' | 'close', unknown>> & { info?: unknown };
  return (
    typeof candidate.connect === 'function' &&
    typeof candidate.tool === 'function' &&
    typeof candidate.close === 'function' &&
    typeof candidate.info === 'object' &&
    candidate.info !== null
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'no prototype'})`;
  return typeof value;
}

/**
 * What `toolwire serve` hands a module whose default export is a function: the shared stores of
 * `--redis`, for the server's options (`rateLimit: { store: rateLimitStore }`, `tasks: { store:
 * taskStore }`). Without `--redis` the function is called with no argument.
 */
export interface ServeContext {
  rateLimitStore?: RateLimitStore;
  taskStore?: TaskStore;
}

/**
 * Imports `modulePath` (resolved from `cwd`) and returns the server it exports. A function is called with
 * `context` when there is one, else with no argument (its parameter's default applies).
 */
export async function loadServerModule(
  modulePath: string,
  cwd = process.cwd(),
  context?: ServeContext,
): Promise<Server> {
  const file = resolve(cwd, modulePath);
  const info = statSync(file, { throwIfNoEntry: false });
  if (!info) throw usageError(`cannot serve ${modulePath}: no such file (${file})`, HINT);
  if (!info.isFile()) throw usageError(`cannot serve ${modulePath}: not a file (${file})`, HINT);

  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    throw usageError(`cannot serve ${modulePath}: importing it failed: ${errorMessage(error)}`, HINT);
  }
  if (!('default' in mod) || mod.default === undefined) {
    throw usageError(
      `cannot serve ${modulePath}: it has no default export (export a toolwire Server, or a function that returns one)`,
      HINT,
    );
  }

  let exported: unknown = mod.default;
  if (typeof exported === 'function' && !isServer(exported)) {
    try {
      const make = exported as (context?: ServeContext) => unknown;
      exported = await (context === undefined ? make() : make(context));
    } catch (error) {
      throw usageError(`cannot serve ${modulePath}: its default export threw: ${errorMessage(error)}`, HINT);
    }
    if (!isServer(exported)) {
      throw usageError(
        `cannot serve ${modulePath}: its default export is a function that returned ${describe(exported)}, not a toolwire Server`,
        HINT,
      );
    }
    return exported;
  }
  if (!isServer(exported)) {
    throw usageError(
      `cannot serve ${modulePath}: its default export is ${describe(exported)}, not a toolwire Server or a function that returns one`,
      HINT,
    );
  }
  return exported;
}
