/**
 * `toolwire logout URL`: forgets what `toolwire login` kept for the MCP server at URL (its tokens, the
 * client registrations made for it, its DPoP key). Nothing is sent to any server.
 * @module
 */
import { OAuthClient } from '../transports/http-client/index.js';
import { CLI, helpHint } from './command-name.js';
import { EXIT_CODES_HELP, ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { FileOAuthStore } from './file-oauth-store.js';
import { parseTarget } from './open-target.js';
import { parseCommandLine, wantsHelp } from './parse-command-line.js';

export const LOGOUT_HELP = `Usage: toolwire logout URL

Forgets the tokens (and client registrations) that "${CLI} login URL" kept for the MCP server at
URL, in the token file ($TOOLWIRE_OAUTH_FILE, else ~/.config/toolwire/oauth.json).

${EXIT_CODES_HELP}
`;

const HINT = helpHint('logout');

export async function logoutCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    process.stdout.write(LOGOUT_HELP);
    return ExitCode.Success;
  }
  const { positionals, rest } = parseCommandLine(argv, {}, HINT);
  if (rest !== undefined || positionals.length !== 1)
    throw usageError('give the server URL, and only it', HINT);
  const target = parseTarget(undefined, HINT, { url: positionals[0] });
  if (target.kind !== 'url') throw usageError('give the server URL', HINT);
  const store = new FileOAuthStore();
  // Only the store is used: no request is made, so the grant settings do not matter.
  const oauth = new OAuthClient({
    redirectUrl: 'http://127.0.0.1/callback',
    authorize: () => Promise.reject(new Error('unused')),
    store,
  });
  const held = await oauth.status(target.url);
  await oauth.logout(target.url);
  process.stdout.write(
    held === undefined ? `Not signed in to ${target.url.href}.\n` : `Signed out of ${target.url.href}.\n`,
  );
  return ExitCode.Success;
}
