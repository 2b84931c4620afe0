/**
 * The `toolwire` command: serve a toolwire server over stdio, list a server's tools, call a tool.
 * `bin/toolwire.mjs` runs {@link main} and exits with the code it returns.
 * @module
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { callCommand, CALL_HELP } from './call-command.js';
import { EXIT_CODES_HELP, ExitCode, reportFailure, usageError, type ExitCodeValue } from './exit-code.js';
import { serveCommand, SERVE_HELP } from './serve-command.js';
import { toolsCommand, TOOLS_HELP } from './tools-command.js';
import { CLIENT_INFO } from './with-client.js';

export { ExitCode, type ExitCodeValue } from './exit-code.js';
export { openTarget, parseTarget, type Target } from './open-target.js';
export { createDemoServer, type DemoServerOptions } from './demo/create-demo-server.js';

export const VERSION = CLIENT_INFO.version;

export const HELP = `toolwire ${VERSION}: MCP tools from the command line

Usage:
  toolwire serve [MODULE] [--http]                serve a server module (default: the demo) over stdio or HTTP
  toolwire tools [--json] (-- <command...> | URL)
                                                  list the tools of the server <command...> or at URL
  toolwire call --tool NAME [--args JSON | key=value...] [--json] (-- <command...> | URL)
                                                  call one tool and print its result
  toolwire help [COMMAND]                         show help (also: toolwire COMMAND --help)
  toolwire --version

Options of "tools" and "call" come before "--"; everything after "--" is the server command,
spawned without a shell and spoken to over stdio. Instead of "-- <command...>", an http(s) URL
connects to a running server over Streamable HTTP (or legacy HTTP+SSE); add --header 'K: V' for auth.

Examples:
  toolwire serve                                  # the demo workspace toolbox, rooted at the cwd
  toolwire tools -- node bin/toolwire.mjs serve
  toolwire call --tool read_file path=README.md -- node bin/toolwire.mjs serve
  toolwire tools http://127.0.0.1:3000/mcp

${EXIT_CODES_HELP}
`;

type Command = (argv: readonly string[]) => Promise<ExitCodeValue>;

const COMMANDS: Readonly<Record<string, { run: Command; help: string }>> = {
  serve: { run: serveCommand, help: SERVE_HELP },
  tools: { run: toolsCommand, help: TOOLS_HELP },
  call: { run: callCommand, help: CALL_HELP },
};

/** Runs the command line `argv` (without `node` and the script) and resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined) {
      process.stderr.write(HELP);
      return ExitCode.Usage;
    }
    if (name === '--help' || name === '-h') {
      process.stdout.write(HELP);
      return ExitCode.Success;
    }
    if (name === '--version' || name === '-V') {
      process.stdout.write(`${VERSION}\n`);
      return ExitCode.Success;
    }
    if (name === 'help') {
      const topic = rest[0];
      if (topic === undefined) {
        process.stdout.write(HELP);
        return ExitCode.Success;
      }
      const command = COMMANDS[topic];
      if (!command) throw usageError(`no help for unknown command "${topic}"`, 'toolwire --help');
      process.stdout.write(command.help);
      return ExitCode.Success;
    }
    const command = COMMANDS[name];
    if (!command) {
      throw usageError(
        `unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})`,
        'toolwire --help',
      );
    }
    return await command.run(rest);
  } catch (error) {
    return reportFailure(error);
  }
}

/** Whether this module is the script node was started with (`node dist/cli.js ...`). */
function isEntryScript(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryScript()) {
  process.exit(await main(process.argv.slice(2)));
}
