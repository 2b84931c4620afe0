/**
 * The `toolwire` command: serve a toolwire server over stdio, list a server's tools, call a tool.
 * `bin/toolwire.mjs` runs {@link main} and exits with the code it returns.
 * @module
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXIT_CODES_HELP, ExitCode, reportFailure, usageError, type ExitCodeValue } from './exit-code.js';
import { VERSION } from './version.js';

export { ExitCode, type ExitCodeValue } from './exit-code.js';

export { VERSION };

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

interface Command {
  run(argv: readonly string[]): Promise<ExitCodeValue>;
  help: string;
}

/**
 * Each command's module is loaded when it runs: `serve` over stdio never loads the client, the HTTP
 * transport or jose (cold start is part of the benchmark).
 */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  serve: async () => {
    const { serveCommand, SERVE_HELP } = await import('./serve-command.js');
    return { run: serveCommand, help: SERVE_HELP };
  },
  tools: async () => {
    const { toolsCommand, TOOLS_HELP } = await import('./tools-command.js');
    return { run: toolsCommand, help: TOOLS_HELP };
  },
  call: async () => {
    const { callCommand, CALL_HELP } = await import('./call-command.js');
    return { run: callCommand, help: CALL_HELP };
  },
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
      const load = COMMANDS[topic];
      if (!load) throw usageError(`no help for unknown command "${topic}"`, 'toolwire --help');
      process.stdout.write((await load()).help);
      return ExitCode.Success;
    }
    const load = COMMANDS[name];
    if (!load) {
      throw usageError(
        `unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})`,
        'toolwire --help',
      );
    }
    return await (await load()).run(rest);
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
