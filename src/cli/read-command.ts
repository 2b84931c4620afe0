/**
 * `toolwire read URI [options] (URL | -- <command...>)`: reads one resource and prints its contents.
 * @module
 */
import { CLIENT_OPTIONS_HELP, parseClientCommandLine } from './client-command-line.js';
import { CLI, helpHint } from './command-name.js';
import { EXIT_CODES_HELP, ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { formatContents } from './format-listing.js';
import { wantsHelp } from './parse-command-line.js';
import { renewedByProgress, withClient } from './with-client.js';
import { printJson, printOut } from './terminal-text.js';

export const READ_HELP = `Usage: toolwire read URI [options] -- <command...>
       toolwire read URI [options] URL

Connects to the MCP server (started from <command...> over stdio, or at URL) and reads the
resource URI (resources/read): text contents are printed as they are, binary contents as
"[blob URI MIME, N bytes]"; several contents each under a "--- URI MIME" line. With --json, the
raw result ({"contents": [...]}). Without "--", URI comes first and the server's URL last.
A URI the server does not know exits 3 (its JSON-RPC error, e.g. -32002 resource not found).

Options (before "--"):
${CLIENT_OPTIONS_HELP}

Examples:
  ${CLI} read file:///$PWD/README.md -- ${CLI} serve
  ${CLI} read --json test://static-text http://127.0.0.1:3000/mcp

${EXIT_CODES_HELP}
`;

const HINT = helpHint('read');

export async function readCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    process.stdout.write(READ_HELP);
    return ExitCode.Success;
  }
  const line = parseClientCommandLine(argv, {}, HINT, { maxPositionals: 1, urlPositionals: true });
  const uri = line.positionals[0];
  if (uri === undefined || uri === '') throw usageError('missing the URI of the resource to read', HINT);
  return withClient(line.target, line.client, async (client, signal) => {
    const result = await client.readResource(uri, { signal, ...renewedByProgress(line.client) });
    if (line.json) printJson(result);
    else printOut(formatContents(result));
    return ExitCode.Success;
  });
}
