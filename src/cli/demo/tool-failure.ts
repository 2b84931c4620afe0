/**
 * Turns what a demo tool hit (a refused path, a file-system error) into an `isError` result the model
 * can read and act on, naming the path as the user gave it rather than the absolute path.
 * @module
 */
import { toolError, type ToolReturn } from '../../server/index.js';
import { SandboxError } from './sandbox.js';

const FS_MESSAGES: Readonly<Record<string, string>> = {
  ENOENT: 'does not exist',
  ENOTDIR: 'has a component that is not a directory',
  EISDIR: 'is a directory',
  EEXIST: 'already exists',
  EACCES: 'is not accessible (permission denied)',
  EPERM: 'is not accessible (operation not permitted)',
  ENAMETOOLONG: 'is too long',
  ELOOP: 'goes through a symbolic link loop',
};

/** The isError result for `error`, met while working on `given` (the path as the caller wrote it). */
export function toolFailure(error: unknown, given: string): ToolReturn<never> {
  if (error instanceof SandboxError) return toolError(`Refused: ${error.message}`);
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
  const known = code === undefined ? undefined : FS_MESSAGES[code];
  if (known) return toolError(`"${given}" ${known}`);
  const message = error instanceof Error ? error.message : String(error);
  return toolError(`Failed on "${given}": ${message}`);
}

/** Runs a tool body; anything it throws becomes {@link toolFailure}. */
export async function guarded<T>(given: string, body: () => Promise<ToolReturn<T>>): Promise<ToolReturn<T>> {
  try {
    return await body();
  } catch (error) {
    return toolFailure(error, given);
  }
}
