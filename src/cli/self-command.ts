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

/** The demo: the workspace server as the one upstream, write_file asking, everything else allowed. */
export function demoConfig(): GatewayConfig {
  const { command, script } = selfCommand();
  return {
    upstreams: { demo: { command, args: [script, 'serve'] } },
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
  const args = ['gateway', ...argv.filter((arg) => arg !== '--print-config')];
  const at = args.indexOf('--config');
  if (at !== -1 && args[at + 1] !== undefined) args[at + 1] = resolve(args[at + 1]!);
  if (!args.includes('--stdio')) args.splice(1, 0, '--stdio');
  return JSON.stringify(
    { mcpServers: { 'toolwire-gateway': { command, args: [script, ...args] } } },
    null,
    2,
  );
}
