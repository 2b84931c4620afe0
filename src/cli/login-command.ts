/**
 * `toolwire login [options] URL`: signs in to the OAuth-protected MCP server at URL (the authorization
 * code grant with PKCE, the server's authorization server found from its metadata), through a loopback
 * redirect listener and a URL printed for a browser, and keeps the tokens in the CLI's token file (0600),
 * where `tools`, `call` and the other commands find them for that URL and refresh them.
 * @module
 */
import { OAuthClient } from '../transports/http-client/index.js';
import { CLI, helpHint } from './command-name.js';
import { CliError, EXIT_CODES_HELP, ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { FileOAuthStore } from './file-oauth-store.js';
import { startLoopbackRedirect } from './loopback-redirect.js';
import { parseTarget } from './open-target.js';
import { parseCommandLine, parsePositiveInteger, wantsHelp } from './parse-command-line.js';
import { withClient } from './with-client.js';
import { describeFetchFailure } from './report-failure.js';
import { printJson } from './terminal-text.js';

export const LOGIN_HELP = `Usage: toolwire login [options] URL

Signs in to the MCP server at URL (http:// or https://) with OAuth: finds its authorization server
(its protected resource metadata), registers this client there if it must, prints a URL to open in a
browser, and waits on 127.0.0.1 for the browser to come back. The tokens are kept in the token file
($TOOLWIRE_OAUTH_FILE, else ~/.config/toolwire/oauth.json; readable by you only), and the other
commands use (and refresh) them for that URL. Then it connects once and says how many tools it sees.

Options:
  --scope SCOPE         ask for these scopes (space-separated) instead of those the server names
  --client-id ID        a client id registered with the authorization server beforehand (its
                        secret, if any, in TOOLWIRE_CLIENT_SECRET)
  --client-issuer ISSUER
                        the issuer of the authorization server that registered --client-id, as the
                        server's metadata names it: the client id goes to no other (without it, it is
                        bound to the first one it is used with)
  --client-metadata-url URL
                        this client's Client ID Metadata Document (HTTPS), used as its client id where
                        the authorization server supports such documents
  --redirect-port PORT  the loopback port the browser comes back to (default 33418, or any free one)
  --timeout MS          how long you have to sign in, and the connection after (default 300000)
  --json                print the result as JSON
  -h, --help            show this help

Examples:
  ${CLI} login https://mcp.example.com/mcp
  ${CLI} tools https://mcp.example.com/mcp          # uses the stored tokens
  ${CLI} logout https://mcp.example.com/mcp

${EXIT_CODES_HELP}
`;

const HINT = helpHint('login');
const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;

const OPTIONS = {
  scope: { type: 'string' },
  'client-id': { type: 'string' },
  'client-issuer': { type: 'string' },
  'client-metadata-url': { type: 'string' },
  'redirect-port': { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function loginCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    process.stdout.write(LOGIN_HELP);
    return ExitCode.Success;
  }
  const { values, positionals, rest } = parseCommandLine(argv, OPTIONS, HINT);
  if (rest !== undefined || positionals.length !== 1)
    throw usageError('give the server URL, and only it', HINT);
  const target = parseTarget(undefined, HINT, { url: positionals[0] });
  if (target.kind !== 'url' || !/^https?:$/.test(target.url.protocol)) {
    throw usageError(`not an http(s) URL: ${positionals[0] ?? ''}`, HINT);
  }
  const timeout = parsePositiveInteger(values.timeout, 'timeout', HINT) ?? DEFAULT_LOGIN_TIMEOUT_MS;
  const port = values['redirect-port'] === undefined ? undefined : Number(values['redirect-port']);
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) {
    throw usageError(`--redirect-port must be a port number, got "${values['redirect-port']}"`, HINT);
  }
  if (values['client-issuer'] !== undefined && values['client-id'] === undefined) {
    throw usageError('--client-issuer goes with --client-id', HINT);
  }
  const store = new FileOAuthStore();
  const redirect = await startLoopbackRedirect((line) => process.stderr.write(`${line}\n`), port);
  try {
    const secret = process.env.TOOLWIRE_CLIENT_SECRET;
    const oauth = new OAuthClient({
      redirectUrl: redirect.redirectUrl,
      authorize: redirect.authorize,
      authorizationTimeoutMs: timeout,
      store,
      clientMetadata: { client_name: 'toolwire CLI' },
      ...(values['client-id'] === undefined ? {} : { clientId: values['client-id'] }),
      ...(values['client-id'] !== undefined && secret ? { clientSecret: secret } : {}),
      ...(values['client-issuer'] === undefined ? {} : { clientIssuer: values['client-issuer'] }),
      ...(values['client-metadata-url'] === undefined
        ? {}
        : { clientMetadataUrl: values['client-metadata-url'] }),
    });
    const url = target.url;
    const challenge = await refusal(url, timeout);
    await oauth.authorize(url, {
      ...(values.scope === undefined ? {} : { scope: values.scope }),
      ...(challenge === undefined ? {} : { challenge }),
    });
    const status = await oauth.status(url);
    const tools = await withClient(
      target,
      { timeout, oauth },
      async (client) => (await client.listTools()).length,
    );
    if (values.json === true) {
      printJson({ url: url.href, ...status, tools, file: store.file });
    } else {
      const scope = status?.scope ? `, scopes: ${status.scope}` : '';
      process.stdout.write(
        `Signed in to ${url.href} (${status?.issuer ?? '?'}${scope}); it lists ${tools} tool${tools === 1 ? '' : 's'}.\n` +
          `Tokens kept in ${store.file}.\n`,
      );
    }
    return ExitCode.Success;
  } finally {
    await redirect.close();
  }
}

/**
 * The server's 401 to an unauthenticated initialize, if it sends one (its challenge tells where its
 * metadata is, even when no well-known URL has it). Any other answer: `undefined`; no answer (refused,
 * timed out): a connection failure.
 */
async function refusal(url: URL, timeout: number): Promise<Response | undefined> {
  const initialize = {
    jsonrpc: '2.0',
    id: 'toolwire-login',
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'toolwire-cli', version: '0' },
    },
  };
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify(initialize),
      redirect: 'manual',
      signal: AbortSignal.timeout(Math.min(timeout, 30_000)),
    });
  } catch (error) {
    // Nothing to sign in to: a connection failure (exit 4), as for every command, not a denial (5).
    throw new CliError(ExitCode.Connection, `cannot reach ${url.href}: ${describeFetchFailure(error)}`, {
      code: 'CONNECTION_FAILED',
      cause: error,
      detail: 'Is a server running at that address?',
    });
  }
  await response.body?.cancel().catch(() => undefined);
  return response.status === 401 ? response : undefined;
}
