/**
 * The toolwire command itself (node and the script this process runs), for the configurations that start
 * it: the demo's upstream (`toolwire serve`, for `gateway --demo`) and the `mcpServers` entry that
 * `gateway --print-config` prints for a host.
 * @module
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayConfig } from '../gateway/index.js';

/** The toolwire command itself, for an upstream that runs `toolwire serve` and for printed configs. */
export function selfCommand(): { command: string; script: string } {
  const script = process.argv[1] ?? fileURLToPath(new URL('../../bin/toolwire.mjs', import.meta.url));
  return { command: process.execPath, script: resolve(script) };
}

/**
 * The demo: the workspace server as the one upstream, rooted at `root` (`demoWorkspace`), write_file asking,
 * everything else allowed.
 */
export function demoConfig(root: string): GatewayConfig {
  const { command, script } = selfCommand();
  return {
    upstreams: { demo: { command, args: [script, 'serve'], env: { TOOLWIRE_DEMO_ROOT: root } } },
    policy: { rules: [{ upstream: 'demo', tool: 'write_file', action: 'ask' }], default: 'allow' },
  };
}

/** What a host's `mcpServers` needs to reach this gateway. */
export function hostConfig(
  values: { http?: boolean | undefined; demo?: boolean | undefined; host?: string | undefined },
  argv: readonly string[],
  port: number,
): string {
  if (values.http || values.demo) {
    const host = values.host ?? '127.0.0.1';
    return JSON.stringify(
      { mcpServers: { 'toolwire-gateway': { type: 'http', url: `http://${host}:${port}/mcp` } } },
      null,
      2,
    );
  }
  const { command, script } = selfCommand();
  const split = argv.indexOf('--');
  const own = split === -1 ? [...argv] : argv.slice(0, split);
  const upstream = split === -1 ? [] : argv.slice(split);
  const args = ['gateway', ...absolutePaths(own.filter((arg) => arg !== '--print-config')), ...upstream];
  if (!own.includes('--stdio')) args.splice(1, 0, '--stdio');
  return JSON.stringify(
    { mcpServers: { 'toolwire-gateway': { command, args: [script, ...args] } } },
    null,
    2,
  );
}

/** The flags whose value is a file, named relative to this directory: a host starts the gateway elsewhere. */
const PATH_FLAGS = ['--config', '--audit'];

/** `flags` with the files of `--config FILE`, `--config=FILE`, `--audit FILE` and `--audit=FILE` absolute. */
function absolutePaths(flags: readonly string[]): string[] {
  return flags.map((arg, at) => {
    if (at > 0 && PATH_FLAGS.includes(flags[at - 1]!)) return resolve(arg);
    const equals = arg.indexOf('=');
    if (equals === -1 || !PATH_FLAGS.includes(arg.slice(0, equals))) return arg;
    return `${arg.slice(0, equals + 1)}${resolve(arg.slice(equals + 1))}`;
  });
}
