/**
 * The `toolwire` command: serve a toolwire server over stdio or HTTP; list a server's tools, resources
 * and prompts; call a tool, read a resource, get a prompt. `bin/toolwire.mjs` runs {@link main} and exits
 * with the code it returns.
 * @module
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLI, helpHint } from './command-name.js';
import { EXIT_CODES_HELP, ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { quietPipes } from './quiet-pipes.js';
import { VERSION } from './version.js';

export { ExitCode, type ExitCodeValue } from './exit-code.js';

export { VERSION };

export const HELP = `toolwire ${VERSION}: MCP tools from the command line

Usage:
  toolwire serve [MODULE] [--http]                serve a server module (default: the demo) over stdio or HTTP
  toolwire tools [options] (-- <command...> | URL)
                                                  list the server's tools
  toolwire call --tool NAME [--args JSON | key=value...] [options] (-- <command...> | URL)
                                                  call one tool and print its result
  toolwire resources [options] (-- <command...> | URL)
                                                  list the server's resources and resource templates
  toolwire read URI [options] (-- <command...> | URL)
                                                  read one resource and print its contents
  toolwire prompts [options] (-- <command...> | URL)
                                                  list the server's prompts
  toolwire prompt NAME [key=value...] [options] (-- <command...> | URL)
                                                  get one prompt and print its messages
  toolwire gateway [--config FILE | --upstream NAME=URL | --upstream NAME -- <command...>] [--http]
                                                  one MCP endpoint in front of many servers, every tool
                                                  call through a policy and, when it asks, a person
  toolwire approvals list | approve ID | deny ID [--gateway URL]
                                                  the gateway's pending approvals, and decisions
  toolwire login [options] URL                    sign in to an OAuth-protected server (tokens kept for
                                                  the commands that take a URL, refreshed as needed)
  toolwire logout URL                             forget the tokens kept for URL
  toolwire help [COMMAND]                         show help (also: toolwire COMMAND --help)
  toolwire --version

The server: everything after "--" is a command, spawned without a shell and spoken to over stdio;
instead, an http(s) URL connects to a running server over Streamable HTTP (or legacy HTTP+SSE).
Options come before "--": --json (raw JSON out, failures as one JSON object), --timeout MS (bounds
connecting and each request), --protocol-version REV (speak only this revision), --header 'K: V'
(URL only), --verbose (the server's stderr as it comes). See each command's --help.

Examples (in a clone of toolwire, or a project that depends on it):
  ${CLI} serve                                 # the demo workspace toolbox, rooted at the cwd
  ${CLI} tools -- ${CLI} serve
  ${CLI} call --tool read_file path=README.md -- ${CLI} serve
  ${CLI} resources --json -- node my-server.mjs
  ${CLI} tools http://127.0.0.1:3000/mcp

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
  resources: async () => {
    const { resourcesCommand, RESOURCES_HELP } = await import('./resources-command.js');
    return { run: resourcesCommand, help: RESOURCES_HELP };
  },
  read: async () => {
    const { readCommand, READ_HELP } = await import('./read-command.js');
    return { run: readCommand, help: READ_HELP };
  },
  prompts: async () => {
    const { promptsCommand, PROMPTS_HELP } = await import('./prompts-command.js');
    return { run: promptsCommand, help: PROMPTS_HELP };
  },
  prompt: async () => {
    const { promptCommand, PROMPT_HELP } = await import('./prompt-command.js');
    return { run: promptCommand, help: PROMPT_HELP };
  },
  gateway: async () => {
    const { gatewayCommand, GATEWAY_HELP } = await import('./gateway-command.js');
    return { run: gatewayCommand, help: GATEWAY_HELP };
  },
  approvals: async () => {
    const { approvalsCommand, APPROVALS_HELP } = await import('./approvals-command.js');
    return { run: approvalsCommand, help: APPROVALS_HELP };
  },
  login: async () => {
    const { loginCommand, LOGIN_HELP } = await import('./login-command.js');
    return { run: loginCommand, help: LOGIN_HELP };
  },
  logout: async () => {
    const { logoutCommand, LOGOUT_HELP } = await import('./logout-command.js');
    return { run: logoutCommand, help: LOGOUT_HELP };
  },
};

/**
 * Whether a failure is also printed as JSON: `--json` before any `--`, except for `serve`, whose `--json`
 * chooses the HTTP response mode.
 */
function wantsJsonFailure(name: string | undefined, rest: readonly string[]): boolean {
  if (name === 'serve') return false;
  const split = rest.indexOf('--');
  return (split === -1 ? rest : rest.slice(0, split)).includes('--json');
}

/** Runs the command line `argv` (without `node` and the script) and resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  // The stdio server guards its own stdout (MCP messages); every other command may be piped into `head`.
  if (name !== 'serve' && name !== 'gateway') quietPipes();
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
      if (!load) throw usageError(`no help for unknown command "${topic}"`, helpHint());
      process.stdout.write((await load()).help);
      return ExitCode.Success;
    }
    const load = COMMANDS[name];
    if (!load) {
      throw usageError(
        `unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})`,
        helpHint(),
        { code: 'UNKNOWN_COMMAND' },
      );
    }
    return await (await load()).run(rest);
  } catch (error) {
    // Loaded only on failure: a stdio server's cold start is part of the benchmark.
    const { reportFailure } = await import('./report-failure.js');
    return reportFailure(error, { json: wantsJsonFailure(name, rest) });
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
