/**
 * `toolwire prompt NAME [key=value...] [options] (URL | -- <command...>)`: gets one prompt with its
 * arguments and prints its messages. The prompt is looked up in the server's list first: an unknown
 * prompt, a missing required argument or one it does not take are usage errors (exit 2).
 * @module
 */
import type { Client } from '../client/index.js';
import type { Prompt } from '../protocol/index.js';
import { CLIENT_OPTIONS_HELP, parseClientCommandLine } from './client-command-line.js';
import { CLI, helpHint } from './command-name.js';
import { EXIT_CODES_HELP, ExitCode, exitCodeFor, usageError, type ExitCodeValue } from './exit-code.js';
import { formatPrompt } from './format-listing.js';
import { targetArgs, type Target } from './open-target.js';
import { wantsHelp } from './parse-command-line.js';
import { setArgument } from './parse-tool-arguments.js';

import { renewedByProgress, withClient } from './with-client.js';
import { oneLine, printJson, printOut } from './terminal-text.js';

export const PROMPT_HELP = `Usage: toolwire prompt NAME [key=value...] [options] -- <command...>
       toolwire prompt NAME [key=value...] [options] URL

Connects to the MCP server (started from <command...> over stdio, or at URL), gets the prompt NAME
(prompts/get) with the arguments key=value (prompt arguments are strings: the value is taken as
written), and prints its messages, each under its role ("[user]", "[assistant]"); content blocks
as "toolwire call" prints them. With --json, the raw result ({"messages": [...]}).
The prompt must be one the server lists, every required argument given, and no other: otherwise
nothing is asked and the command exits 2, saying what the prompt takes.

Options (before "--"):
${CLIENT_OPTIONS_HELP}

Examples:
  ${CLI} prompt summarize topic=MCP style=short -- node my-server.mjs
  ${CLI} prompt --json summarize topic=MCP http://127.0.0.1:3000/mcp

${EXIT_CODES_HELP}
`;

const HINT = helpHint('prompt');

export async function promptCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    process.stdout.write(PROMPT_HELP);
    return ExitCode.Success;
  }
  const line = parseClientCommandLine(argv, {}, HINT);
  const [name, ...pairs] = line.positionals;
  if (name === undefined || name === '') throw usageError('missing the NAME of the prompt to get', HINT);
  const args: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw usageError(`expected key=value, got "${pair}" (put the server command after "--")`, HINT);
    setArgument(args, pair.slice(0, eq), pair.slice(eq + 1));
  }
  return withClient(line.target, line.client, async (client, signal) => {
    const prompt = await findPrompt(client, name, line.target, signal);
    if (prompt) checkPromptArguments(prompt, args);
    const result = await client.getPrompt(name, args, { signal, ...renewedByProgress(line.client) });
    if (line.json) printJson(result);
    else printOut(formatPrompt(result));
    return ExitCode.Success;
  });
}

/** The prompt as listed; not listed: a usage error (`UNKNOWN_PROMPT`). Undefined when there is no list. */
async function findPrompt(
  client: Client,
  name: string,
  target: Target,
  signal: AbortSignal,
): Promise<Prompt | undefined> {
  // A server that does not declare prompts has none, as `toolwire prompts` says: no prompts/get for -32601.
  const declared = client.serverCapabilities?.prompts !== undefined;
  let prompts: Prompt[] = [];
  try {
    if (declared) prompts = await client.listPrompts({ signal });
  } catch (error) {
    if (exitCodeFor(error) === ExitCode.Connection) throw error;
    return undefined;
  }
  const prompt = prompts.find((p) => p.name === name);
  if (prompt) return prompt;
  const names = prompts.map((p) => p.name);
  throw usageError(`the server has no prompt "${name}"`, `${CLI} prompts ${targetArgs(target)}`, {
    code: 'UNKNOWN_PROMPT',
    detail: !declared
      ? 'It declares no prompts.'
      : names.length === 0
        ? 'It lists no prompts.'
        : oneLine(`Its prompts: ${names.join(', ')}`),
    details: { prompt: name, prompts: names },
  });
}

/** Every required argument given, and no argument the prompt does not declare (`INVALID_ARGUMENTS`). */
function checkPromptArguments(prompt: Prompt, args: Record<string, string>): void {
  const declared = prompt.arguments ?? [];
  const known = new Set(declared.map((arg) => arg.name));
  // Own members only: `constructor` or `toString` is not given by being Object.prototype's.
  const missing = declared
    .filter((arg) => arg.required && !Object.hasOwn(args, arg.name))
    .map((arg) => arg.name);
  const unknown = Object.keys(args).filter((key) => !known.has(key));
  if (missing.length === 0 && unknown.length === 0) return;
  const problems = [
    ...(missing.length > 0 ? [`missing ${missing.join(', ')}`] : []),
    ...(unknown.length > 0 ? [`it takes no ${unknown.join(', ')}`] : []),
  ];
  const takes = declared.map((arg) => (arg.required ? `${arg.name} (required)` : `${arg.name}?`));
  throw usageError(oneLine(`wrong arguments for prompt ${prompt.name}: ${problems.join('; ')}`), HINT, {
    code: 'INVALID_ARGUMENTS',
    detail: `${oneLine(`${prompt.name} takes: ${takes.length === 0 ? '(no arguments)' : takes.join(', ')}`)}\nNothing was asked.`,
    details: { prompt: prompt.name, missing, unknown },
  });
}
