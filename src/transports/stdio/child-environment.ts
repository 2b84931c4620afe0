/**
 * The environment a spawned stdio server gets.
 * @module
 */

/** Variables passed through with `inheritEnv: false`. */
export const SAFE_ENV_VARS: readonly string[] =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PROCESSOR_ARCHITECTURE',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'PROGRAMFILES',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'TMPDIR'];

/**
 * The child's environment: `process.env` (all of it, or with `inherit: false` only
 * {@link SAFE_ENV_VARS}), with `extra` merged over it.
 */
export function buildEnvironment(
  extra: Record<string, string> | undefined,
  inherit: boolean,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const names = inherit ? Object.keys(process.env) : SAFE_ENV_VARS;
  for (const name of names) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}
