/**
 * `toolwire resources [options] (URL | -- <command...>)`: lists a server's resources and resource
 * templates (every page of each).
 * @module
 */
import type { Client } from '../client/index.js';
import type { ResourceTemplate } from '../protocol/index.js';
import { LISTING_OPTIONS_HELP, parseClientCommandLine } from './client-command-line.js';
import { CLI, helpHint } from './command-name.js';
import { EXIT_CODES_HELP, ExitCode, exitCodeFor, type ExitCodeValue } from './exit-code.js';
import { describeResource, describeTemplate, serverLine } from './format-listing.js';
import { wantsHelp } from './parse-command-line.js';
import { withClient } from './with-client.js';
import { printJson, printOut } from './terminal-text.js';

export const RESOURCES_HELP = `Usage: toolwire resources [options] -- <command...>
       toolwire resources [options] URL

Connects to the MCP server (started from <command...> over stdio, or at URL) and lists its
resources and resource templates (every page): URI, name and title, MIME type, size, description.
A server that does not declare the resources capability has none. With --json:
{"resources": [...], "resourceTemplates": [...]}. Read one with "${CLI} read URI".

Options (before "--"):
${LISTING_OPTIONS_HELP}

Examples:
  ${CLI} resources -- ${CLI} serve
  ${CLI} resources --json http://127.0.0.1:3000/mcp

${EXIT_CODES_HELP}
`;

const HINT = helpHint('resources');

export async function resourcesCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    printOut(RESOURCES_HELP);
    return ExitCode.Success;
  }
  const line = parseClientCommandLine(argv, {}, HINT, { maxPositionals: 0, listing: true });
  return withClient(line.target, line.client, async (client, signal) => {
    const declared = client.serverCapabilities?.resources !== undefined;
    const resources = declared ? await client.listResources({ signal }) : [];
    const resourceTemplates = declared ? await listTemplates(client, signal) : [];
    if (line.json) {
      printJson({ resources, resourceTemplates });
      return ExitCode.Success;
    }
    printOut(
      serverLine(client.serverInfo, client.protocolVersion, [
        [resources.length, 'resource'],
        [resourceTemplates.length, 'template'],
      ]),
    );
    if (!declared) printOut('(the server does not declare the resources capability)\n');
    if (resources.length > 0) printOut(`\n${resources.map(describeResource).join('\n\n')}\n`);
    if (resourceTemplates.length > 0) {
      printOut(`\nTemplates:\n\n${resourceTemplates.map(describeTemplate).join('\n\n')}\n`);
    }
    return ExitCode.Success;
  });
}

/** Templates are optional within the capability: a server that has no `resources/templates/list` has none. */
async function listTemplates(client: Client, signal: AbortSignal): Promise<ResourceTemplate[]> {
  try {
    return await client.listResourceTemplates({ signal });
  } catch (error) {
    if (exitCodeFor(error) !== ExitCode.Protocol) throw error;
    return [];
  }
}
