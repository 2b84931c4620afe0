/**
 * `toolwire call --tool NAME [--args JSON] [key=value...] [options] (URL | -- <command...>)`: calls one
 * tool and prints its result, asking on the terminal first when the tool may change things. The tool is
 * looked up in the server's list first: arguments that do not match its input schema are a usage error
 * (exit 2) and nothing is run; a tool it does not list and refuses is one too (`UNKNOWN_TOOL`).
 * @module
 */
import { ClientError, type ApprovalOptions, type Client } from '../client/index.js';
import { LocalErrorCode, ProtocolError, type Tool } from '../protocol/index.js';
import { checkToolArguments } from './check-tool-arguments.js';
import { CLIENT_OPTIONS_HELP, parseClientCommandLine } from './client-command-line.js';
import { CLI, helpHint } from './command-name.js';
import {
  CliError,
  EXIT_CODES_HELP,
  ExitCode,
  exitCodeFor,
  usageError,
  type ExitCodeValue,
} from './exit-code.js';
import { formatResult } from './format-result.js';
import { targetArgs, type Target } from './open-target.js';
import { wantsHelp } from './parse-command-line.js';
import { buildToolArguments, parseToolArguments } from './parse-tool-arguments.js';
import { progressLine } from './progress-line.js';
import { NO_TERMINAL, terminalApprover } from './terminal-approver.js';
import { renewedByProgress, withClient } from './with-client.js';
import { printErr, printJson, printOut } from './terminal-text.js';

export const CALL_HELP = `Usage: toolwire call --tool NAME [--args JSON | key=value...] [options] -- <command...>
       toolwire call --tool NAME [--args JSON | key=value...] [options] URL

Starts the MCP server <command...> (everything after "--") and connects over stdio, or connects to
the server at URL (http:// or https://; Streamable HTTP, falling back to the legacy HTTP+SSE
transport), calls one tool, and prints its result: text as text, images and audio as
"[image image/png, N bytes]", resource links as "[link name uri]", embedded resources summarized,
structured content as indented JSON.

The arguments must match the input schema of the tool as the server lists it: otherwise nothing is
run and the command exits 2, saying what is wrong. A tool the server does not have exits 2 too,
naming the tools it lists.

Before calling a tool whose annotations say it may change things (not readOnlyHint, and
destructiveHint not false — or open-world), it shows the tool, its annotations and the exact
arguments on the terminal and asks. With no terminal (stdin is not a TTY) no one can be asked: it
runs nothing and exits 5; pass --yes to call without asking. The server is one you chose to run,
so its annotations are trusted here; a tool that declares no annotations is called without asking.

When the server asks you something during the call (elicitation), it is asked on the terminal: a
form field by field (Enter keeps a default or skips an optional field; a wrong answer is asked
again), a page to open shown with its full URL and host (toolwire never opens it). "n" declines,
Ctrl-D cancels. Ctrl-C, at any question (the approval's too), interrupts the command as it does
anywhere: the call is cancelled, the server stopped, exit 130. With no terminal, toolwire does not
offer to answer (no elicitation capability), and a tool that must ask fails, saying so.

Text from the server that would steer a terminal (escape sequences, carriage returns,
bidirectional overrides) is shown as escapes (\\x1b, \\u202e) on the terminal; piped, the output is
the server's text as sent.

Arguments (before "--" or around the URL):
  --tool NAME     the tool to call (required)
  --args JSON     the arguments, a JSON object: --args '{"path":"README.md"}'
  key=value       one argument, typed as the tool's input schema says: a string property takes
                  the value as written (path=5 is "5"); a number, integer or boolean property
                  parses it (n=5, ok=true); any other is JSON when it parses (tags='["a"]'),
                  else a string. Pairs override --args.

Options:
${CLIENT_OPTIONS_HELP}
  --progress      print the tool's progress notifications on stderr
  --task          call the tool as a task where the server and the tool allow it (a tool that
                  requires a task always gets one); each status of the task is printed on stderr,
                  "task ID: working — message", until it ends
  -y, --yes       call the tool without asking, whatever its annotations say

Examples:
  ${CLI} call --tool read_file path=README.md -- ${CLI} serve
  ${CLI} call --tool search_files --args '{"pattern":"TODO"}' --progress -- ${CLI} serve
  ${CLI} call --tool read_file path=README.md http://127.0.0.1:3000/mcp
  ${CLI} call --tool monthly_report month=May --task http://127.0.0.1:3000/mcp

${EXIT_CODES_HELP}
A tool error prints the result like any other (with --json, the result object), then a line on
stderr, and exits 1.
`;

const HINT = helpHint('call');

export async function callCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    process.stdout.write(CALL_HELP);
    return ExitCode.Success;
  }
  const line = parseClientCommandLine(
    argv,
    {
      tool: { type: 'string' },
      args: { type: 'string' },
      progress: { type: 'boolean' },
      task: { type: 'boolean' },
      yes: { type: 'boolean', short: 'y' },
    },
    HINT,
  );
  const { values } = line;
  const name = values.tool;
  if (name === undefined || name === '') throw usageError('missing --tool NAME', HINT);
  const input = parseToolArguments(values.args, line.positionals, HINT);

  const terminal = values.yes ? undefined : terminalApprover();
  const approval: ApprovalOptions | undefined = terminal && {
    trustAnnotations: true,
    unannotated: 'allow',
    defaultAction: 'allow',
    approver: terminal.approver,
  };
  return withClient(line.target, { ...line.client, approval }, async (client, signal) => {
    const listed = await listTools(client, signal);
    const tool = listed?.find((t) => t.name === name);
    const args = buildToolArguments(input, tool?.inputSchema, HINT);
    if (tool) checkToolArguments(tool, args, HINT);
    const result = await client
      .callTool(name, args, {
        signal,
        ...renewedByProgress(
          line.client,
          values.progress ? (report) => printErr(progressLine(report)) : undefined,
        ),
        ...(values.task ? { task: true } : {}),
        onTaskStatus: ({ taskId, status, statusMessage }) => {
          printErr(`task ${taskId}: ${status}${statusMessage ? ` — ${statusMessage}` : ''}\n`);
        },
      })
      .catch((error: unknown) => {
        if (listed && !tool && error instanceof ProtocolError)
          throw unknownTool(name, listed, line.target, error);
        throw deniedError(name, error, terminal);
      });
    if (line.json) printJson(result);
    else printOut(formatResult(result));
    if (result.isError === true) {
      printErr(`toolwire: tool ${name} returned an error (isError)\n`);
      return ExitCode.ToolError;
    }
    return ExitCode.Success;
  });
}

/** The server's tools, or undefined when it has no list to give (no tools/list): the call is then made blind. */
async function listTools(client: Client, signal: AbortSignal): Promise<readonly Tool[] | undefined> {
  try {
    return await client.listTools({ signal });
  } catch (error) {
    if (exitCodeFor(error) === ExitCode.Connection) throw error;
    return undefined;
  }
}

/**
 * A tool the server does not list, and refused with a JSON-RPC error: a usage error (`UNKNOWN_TOOL`) naming
 * the tools it lists. (An unlisted tool is still called: a server may hide a tool from a caller and then
 * explain, e.g. with the scopes it needs.)
 */
function unknownTool(name: string, listed: readonly Tool[], target: Target, cause: ProtocolError): CliError {
  const names = listed.map((t) => t.name);
  const shown = names.length > 20 ? [...names.slice(0, 20), `… (${names.length} in all)`] : names;
  return usageError(
    `the server has no tool "${name}" (it answered: ${cause.message})`,
    `${CLI} tools ${targetArgs(target)}`,
    {
      code: 'UNKNOWN_TOOL',
      detail: names.length === 0 ? 'It lists no tools.' : `Its tools: ${shown.join(', ')}`,
      details: { tool: name, tools: names, jsonrpcCode: cause.code },
    },
  );
}

/** A denied call as a CLI failure (exit 5) that says why and how to go ahead; anything else unchanged. */
function deniedError(
  name: string,
  error: unknown,
  terminal: { refusedWithoutTerminal: boolean; unaskedReason: string | undefined } | undefined,
): unknown {
  if (!(error instanceof ClientError) || error.code !== LocalErrorCode.ToolCallDenied) return error;
  const reason = (error.details as { reason?: string } | undefined)?.reason ?? '';
  if (terminal?.refusedWithoutTerminal) {
    const why = terminal.unaskedReason ? ` (${terminal.unaskedReason})` : '';
    return new CliError(
      ExitCode.Denied,
      `tool ${name} was not run: it needs approval${why}, and ${NO_TERMINAL}`,
      {
        cause: error,
        code: 'TOOL_CALL_DENIED',
        detail: 'Pass --yes to call it without asking.',
        details: { tool: name, reason: `${terminal.unaskedReason ?? 'approval needed'}; ${NO_TERMINAL}` },
      },
    );
  }
  return new CliError(ExitCode.Denied, `tool ${name} was not run: it was not approved`, {
    cause: error,
    code: 'TOOL_CALL_DENIED',
    detail: `${reason}\nPass --yes to call it without asking.`,
    details: { tool: name, reason },
  });
}
