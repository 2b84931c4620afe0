/**
 * `toolwire prompts [options] (URL | -- <command...>)`: lists a server's prompts (every page).
 * @module
 */
import { LISTING_OPTIONS_HELP, parseClientCommandLine } from './client-command-line.js';
import { CLI, helpHint } from './command-name.js';
import { EXIT_CODES_HELP, ExitCode, type ExitCodeValue } from './exit-code.js';
import { describePrompt, serverLine } from './format-listing.js';
import { wantsHelp } from './parse-command-line.js';
import { withClient } from './with-client.js';
import { printJson, printOut } from './terminal-text.js';

export const PROMPTS_HELP = `Usage: toolwire prompts [options] -- <command...>
       toolwire prompts [options] URL

Connects to the MCP server (started from <command...> over stdio, or at URL) and lists its prompts
(every page): name and title, description, and their arguments ("topic (required), style?").
A server that does not declare the prompts capability has none. With --json, the raw "prompts"
array. Get one with "${CLI} prompt NAME key=value...".

Options (before "--"):
${LISTING_OPTIONS_HELP}

Examples:
  ${CLI} prompts -- node my-server.mjs
  ${CLI} prompts --json http://127.0.0.1:3000/mcp

${EXIT_CODES_HELP}
`;

const HINT = helpHint('prompts');

export async function promptsCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    printOut(PROMPTS_HELP);
    return ExitCode.Success;
  }
  const line = parseClientCommandLine(argv, {}, HINT, { maxPositionals: 0, listing: true });
  return withClient(line.target, line.client, async (client, signal) => {
    const declared = client.serverCapabilities?.prompts !== undefined;
    const prompts = declared ? await client.listPrompts({ signal }) : [];
    if (line.json) {
      printJson(prompts);
      return ExitCode.Success;
    }
    printOut(serverLine(client.serverInfo, client.protocolVersion, [[prompts.length, 'prompt']]));
    if (!declared) printOut('(the server does not declare the prompts capability)\n');
    if (prompts.length > 0) printOut(`\n${prompts.map(describePrompt).join('\n\n')}\n`);
    return ExitCode.Success;
  });
}
