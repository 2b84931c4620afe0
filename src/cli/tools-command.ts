/**
 * `toolwire tools [--json] [--timeout MS] [--verbose] (URL | -- <command...>)`: lists a server's tools.
 * @module
 */
import { EXIT_CODES_HELP, ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { describeTool } from './describe-tool.js';
import { parseTarget, takeUrlTarget } from './open-target.js';
import { parseCommandLine, parsePositiveInteger, wantsHelp } from './parse-command-line.js';
import { withClient } from './with-client.js';

export const TOOLS_HELP = `Usage: toolwire tools [options] -- <command...>
       toolwire tools [options] URL

Starts the MCP server <command...> (everything after "--") and connects over stdio, or connects to
the server at URL (http:// or https://; Streamable HTTP, falling back to the legacy HTTP+SSE
transport), and lists all its tools (every page): name and title, description, annotation hints
(read-only, destructive, idempotent, open-world), and a one-line summary of the input and output
schemas.

Options (before "--"):
  --json          print the raw "tools" array as JSON instead
  --timeout MS    timeout of each request, in ms (default 60000; the handshake waits at least 30 s)
  --header 'K: V' send this HTTP header with every request (URL only; repeatable), e.g. for auth
                  (an OAuth access token is better passed in TOOLWIRE_TOKEN: sent as a Bearer token,
                  kept out of the command line)
  -v, --verbose   show the server's stderr as it comes (default: only when the connection fails)
  -h, --help      show this help

Examples:
  toolwire tools -- node bin/toolwire.mjs serve
  toolwire tools --json -- npx -y some-mcp-server
  toolwire tools --header "Authorization: Bearer $TOKEN" http://127.0.0.1:3000/mcp

${EXIT_CODES_HELP}
`;

const HINT = 'toolwire tools --help';

export async function toolsCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    process.stdout.write(TOOLS_HELP);
    return ExitCode.Success;
  }
  const { values, positionals, rest } = parseCommandLine(
    argv,
    {
      json: { type: 'boolean' },
      timeout: { type: 'string' },
      header: { type: 'string', multiple: true },
      verbose: { type: 'boolean', short: 'v' },
    },
    HINT,
  );
  const { url, others } = takeUrlTarget(positionals, HINT);
  if (others.length > 0) {
    throw usageError(`unexpected argument "${others[0]}" (put the server command after "--")`, HINT);
  }
  const target = parseTarget(rest, HINT, { url, headers: values.header });
  const timeout = parsePositiveInteger(values.timeout, 'timeout', HINT);

  return withClient(target, { timeout, verbose: values.verbose }, async (client) => {
    const tools = await client.listTools();
    if (values.json) {
      process.stdout.write(`${JSON.stringify(tools, null, 2)}\n`);
      return ExitCode.Success;
    }
    const server = client.serverInfo;
    const header = `${server?.name ?? 'server'} ${server?.version ?? ''}`.trim();
    const count = `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
    const blocks = tools.map((tool) => describeTool(tool));
    process.stdout.write(`${header} (protocol ${client.protocolVersion ?? '?'}): ${count}\n\n`);
    if (blocks.length > 0) process.stdout.write(`${blocks.join('\n\n')}\n`);
    return ExitCode.Success;
  });
}
