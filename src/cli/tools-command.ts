/**
 * `toolwire tools [options] (URL | -- <command...>)`: lists a server's tools.
 * @module
 */
import { LISTING_OPTIONS_HELP, parseClientCommandLine } from './client-command-line.js';
import { CLI, helpHint } from './command-name.js';
import { describeTool } from './describe-tool.js';
import { EXIT_CODES_HELP, ExitCode, type ExitCodeValue } from './exit-code.js';
import { wantsHelp } from './parse-command-line.js';
import { withClient } from './with-client.js';
import { oneLine, printJson, printOut } from './terminal-text.js';

export const TOOLS_HELP = `Usage: toolwire tools [options] -- <command...>
       toolwire tools [options] URL

Starts the MCP server <command...> (everything after "--") and connects over stdio, or connects to
the server at URL (http:// or https://; Streamable HTTP, falling back to the legacy HTTP+SSE
transport), and lists all its tools (every page): name and title, description, annotation hints
(read-only, destructive, idempotent, open-world), and a one-line summary of the input and output
schemas. With --json, the raw "tools" array.

Options (before "--"):
${LISTING_OPTIONS_HELP}

Examples:
  ${CLI} tools -- ${CLI} serve
  ${CLI} tools --json -- npx -y some-mcp-server
  ${CLI} tools --protocol-version 2025-06-18 -- node my-server.mjs
  ${CLI} tools --header "Authorization: Bearer $TOKEN" http://127.0.0.1:3000/mcp

${EXIT_CODES_HELP}
`;

const HINT = helpHint('tools');

export async function toolsCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    printOut(TOOLS_HELP);
    return ExitCode.Success;
  }
  const line = parseClientCommandLine(argv, {}, HINT, { maxPositionals: 0, listing: true });
  return withClient(line.target, line.client, async (client, signal) => {
    const tools = await client.listTools({ signal });
    if (line.json) {
      printJson(tools);
      return ExitCode.Success;
    }
    const server = client.serverInfo;
    const header = oneLine(`${server?.name ?? 'server'} ${server?.version ?? ''}`.trim());
    const count = `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
    const blocks = tools.map((tool) => describeTool(tool));
    printOut(`${header} (protocol ${client.protocolVersion ?? '?'}): ${count}\n\n`);
    if (blocks.length > 0) printOut(`${blocks.join('\n\n')}\n`);
    return ExitCode.Success;
  });
}
