/**
 * How the `toolwire` command is named in the hints it prints, so that a hint is a command that works where
 * the user is: `npx toolwire …` in a clone or a project that depends on toolwire (npx finds the package's
 * own bin there), a bare `toolwire …` only when it was started through a bin on the PATH (a global install).
 *
 * @example
 * helpHint('call'); // 'npx toolwire call --help'
 * @module
 */

/** `toolwire` when started through a bin named so outside node_modules (on the PATH), else `npx toolwire`. */
export function commandName(script: string | undefined = process.argv[1]): string {
  if (script === undefined) return 'npx toolwire';
  const base = script.split(/[\\/]/).pop() ?? '';
  const global = (base === 'toolwire' || base === 'toolwire.cmd') && !/[\\/]node_modules[\\/]/.test(script);
  return global ? 'toolwire' : 'npx toolwire';
}

/** The command's name as hints print it (see {@link commandName}). */
export const CLI = commandName();

/** `npx toolwire COMMAND --help` (or `npx toolwire --help`). */
export function helpHint(command?: string): string {
  return command === undefined ? `${CLI} --help` : `${CLI} ${command} --help`;
}
