/**
 * The checks of a tool's descriptive fields at registration: `title` and `description` are strings,
 * `annotations` an object of boolean hints (and a string `title`), `icons` an array of `Icon`s (a string
 * `src`; `mimeType`, `sizes` and `theme` of their types), `_meta` a plain object. A JavaScript caller can
 * pass anything; a malformed `Tool` would break every client's parsing of `tools/list`.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import { ServerError } from '../server-error.js';

/** The fields checked here, as `server.tool()` takes them. */
export interface ToolMetadata {
  title?: unknown;
  description?: unknown;
  annotations?: unknown;
  icons?: unknown;
  _meta?: unknown;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** An object made by `{}` or `Object.create(null)` (not an array, a Map, a class instance). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function annotationsProblem(annotations: unknown): string | undefined {
  if (!isPlainObject(annotations)) return 'annotations must be an object';
  for (const hint of HINTS) {
    const value = annotations[hint];
    if (value !== undefined && typeof value !== 'boolean') return `annotations.${hint} must be a boolean`;
  }
  if (annotations.title !== undefined && typeof annotations.title !== 'string')
    return 'annotations.title must be a string';
  return undefined;
}

function iconProblem(icon: unknown, at: string): string | undefined {
  if (!isPlainObject(icon)) return `${at} must be an object`;
  if (typeof icon.src !== 'string') return `${at}.src must be a string`;
  if (icon.mimeType !== undefined && typeof icon.mimeType !== 'string')
    return `${at}.mimeType must be a string`;
  const { sizes, theme } = icon;
  if (sizes !== undefined && !(Array.isArray(sizes) && sizes.every((size) => typeof size === 'string')))
    return `${at}.sizes must be an array of strings`;
  if (theme !== undefined && theme !== 'light' && theme !== 'dark')
    return `${at}.theme must be 'light' or 'dark'`;
  return undefined;
}

function iconsProblem(icons: unknown): string | undefined {
  if (!Array.isArray(icons)) return 'icons must be an array of icons';
  for (let index = 0; index < icons.length; index++) {
    const problem = iconProblem(icons[index], `icons[${index}]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function metadataProblem(spec: ToolMetadata): string | undefined {
  if (spec.title !== undefined && typeof spec.title !== 'string') return 'title must be a string';
  if (spec.description !== undefined && typeof spec.description !== 'string')
    return 'description must be a string';
  if (spec.annotations !== undefined) {
    const problem = annotationsProblem(spec.annotations);
    if (problem !== undefined) return problem;
  }
  if (spec.icons !== undefined) {
    const problem = iconsProblem(spec.icons);
    if (problem !== undefined) return problem;
  }
  if (spec._meta !== undefined && !isPlainObject(spec._meta)) return '_meta must be a plain object';
  return undefined;
}

/**
 * Checks a tool's descriptive fields.
 *
 * @throws {ServerError} `INVALID_DEFINITION` naming the first field that is wrong.
 */
export function checkToolMetadata(name: string, spec: ToolMetadata): void {
  const problem = metadataProblem(spec);
  if (problem !== undefined) {
    throw new ServerError(LocalErrorCode.InvalidDefinition, `Tool "${name}": ${problem}`);
  }
}
