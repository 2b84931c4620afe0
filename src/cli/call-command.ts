/**
 * `toolwire call --tool NAME [--args JSON] [key=value...] [--json] [--timeout MS] [--yes] (URL | -- <command...>)`:
 * calls one tool and prints its result, asking on the terminal first when the tool may change things.
 * @module
 */
import { ClientError, type ApprovalOptions } from '../client/index.js';
import { LocalErrorCode } from '../protocol/index.js';
import { CliError, EXIT_CODES_HELP, ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { formatResult } from './format-result.js';
import { parseTarget, takeUrlTarget } from './open-target.js';
import { parseCommandLine, parsePositiveInteger, wantsHelp } from './parse-command-line.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import { NO_TERMINAL, terminalApprover } from './terminal-approver.js';
import { withClient } from './with-client.js';

export const CALL_HELP = `Usage: toolwire call --tool NAME [--args JSON | key=value...] [options] -- <command...>
       toolwire call --tool NAME [--args JSON | key=value...] [options] URL

Starts the MCP server <command...> (everything after "--") and connects over stdio, or connects to
the server at URL (http:// or https://; Streamable HTTP, falling back to the legacy HTTP+SSE
transport), calls one tool, and prints its result: text as text, images and audio as
"[image image/png, N bytes]", resource links as "[link name uri]", embedded resources summarized,
structured content as indented JSON.

Before calling a tool whose annotations say it may change things (not readOnlyHint, and
destructiveHint not false — or open-world), it shows the tool, its annotations and the exact
arguments on the terminal and asks. With no terminal to ask on (stdin is not a TTY), it refuses,
runs nothing and exits 5: pass --yes to call without asking. The server is one you chose to run,
so its annotations are trusted here; a tool that declares no annotations is called without asking.

Arguments (before "--" or anywhere around the URL):
  --tool NAME     the tool to call (required)
  --args JSON     the arguments, a JSON object: --args '{"path":"README.md"}'
  key=value       one argument; the value is parsed as JSON when it parses (n=5, ok=true,
                  tags='["a"]'), else taken as a string (path=README.md). Pairs override --args.

Options:
  --json          print the raw result as JSON instead
  --timeout MS    timeout of the call, in ms (default 60000; the handshake waits at least 30 s)
  --progress      print the tool's progress notifications on stderr
  -y, --yes       call the tool without asking, whatever its annotations say
  --header 'K: V' send this HTTP header with every request (URL only; repeatable), e.g. for auth
                  (an OAuth access token is better passed in TOOLWIRE_TOKEN: sent as a Bearer token,
                  kept out of the command line)
  -v, --verbose   show the server's stderr as it comes (default: only when the connection fails)
  -h, --help      show this help

Examples:
  toolwire call --tool read_file path=README.md -- node bin/toolwire.mjs serve
  toolwire call --tool search_files --args '{"pattern":"/TODO|FIXME/"}' --progress -- toolwire serve
  toolwire call --tool read_file path=README.md http://127.0.0.1:3000/mcp

${EXIT_CODES_HELP}
A tool error prints the result like any other, then a line on stderr, and exits 1.
`;

const HINT = 'toolwire call --help';

export async function callCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    process.stdout.write(CALL_HELP);
    return ExitCode.Success;
  }
  const { values, positionals, rest } = parseCommandLine(
    argv,
    {
      tool: { type: 'string' },
      args: { type: 'string' },
      json: { type: 'boolean' },
      timeout: { type: 'string' },
      progress: { type: 'boolean' },
      header: { type: 'string', multiple: true },
      verbose: { type: 'boolean', short: 'v' },
      yes: { type: 'boolean', short: 'y' },
    },
    HINT,
  );
  const name = values.tool;
  if (name === undefined || name === '') throw usageError('missing --tool NAME', HINT);
  const { url, others } = takeUrlTarget(positionals, HINT);
  const args = parseToolArguments(values.args, others, HINT);
  const target = parseTarget(rest, HINT, { url, headers: values.header });
  const timeout = parsePositiveInteger(values.timeout, 'timeout', HINT);

  const terminal = values.yes ? undefined : terminalApprover();
  const approval: ApprovalOptions | undefined = terminal && {
    trustAnnotations: true,
    unannotated: 'allow',
    defaultAction: 'allow',
    approver: terminal.approver,
  };
  return withClient(target, { timeout, verbose: values.verbose, approval }, async (client) => {
    const result = await client
      .callTool(name, args, {
        ...(timeout === undefined ? {} : { timeout }),
        ...(values.progress
          ? {
              onProgress: ({ progress, total, message }) => {
                const of = total === undefined ? '' : `/${total}`;
                process.stderr.write(`progress: ${progress}${of}${message ? ` ${message}` : ''}\n`);
              },
            }
          : {}),
      })
      .catch((error: unknown) => {
        throw deniedError(name, error, terminal?.refusedWithoutTerminal === true);
      });
    process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : formatResult(result));
    if (result.isError === true) {
      process.stderr.write(`toolwire: tool ${name} returned an error (isError)\n`);
      return ExitCode.ToolError;
    }
    return ExitCode.Success;
  });
}

/** A denied call as a CLI failure (exit 5) that says how to go ahead; anything else unchanged. */
function deniedError(name: string, error: unknown, noTerminal: boolean): unknown {
  if (!(error instanceof ClientError) || error.code !== LocalErrorCode.ToolCallDenied) return error;
  const why = noTerminal ? `it needs approval and ${NO_TERMINAL}` : 'it was not approved';
  return new CliError(ExitCode.Denied, `tool ${name} was not run: ${why}`, {
    cause: error,
    detail: `${(error.details as { reason?: string } | undefined)?.reason ?? ''}\nPass --yes to call it without asking.`,
  });
}
