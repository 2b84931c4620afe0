/**
 * The options and help of `toolwire serve` (see serve-command.ts), read by both of its paths: over stdio and
 * over HTTP (serve-over-http.ts).
 * @module
 */
import { CLI } from './command-name.js';
import { EXIT_CODES_HELP } from './exit-code.js';
import { HTTP_AUTH_FLAGS } from './http-auth-flags.js';

export const SERVE_OPTIONS = {
  http: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  stateless: { type: 'boolean' },
  json: { type: 'boolean' },
  ...HTTP_AUTH_FLAGS,
  redis: { type: 'string' },
  'session-unload-ms': { type: 'string' },
} as const;

export type ServeValues = {
  [K in keyof typeof SERVE_OPTIONS]?: (typeof SERVE_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

export const SERVE_HELP = `Usage: toolwire serve [MODULE] [--http [--port P] [--host H] [--stateless] [--json]
                                      [--jwks URL --issuer ISS [--audience URL]
                                       [--authorization-server URL] [--scope S]]
                                      [--redis URL [--session-unload-ms MS]]]

Serves a toolwire server over stdio: MCP messages on stdin and stdout, one JSON message per line.
With --http, serves it over Streamable HTTP at http://HOST:PORT/mcp (and the legacy HTTP+SSE
transport at /sse + /messages) and prints the URL on stdout.

  --http        serve over HTTP instead of stdio
  --port P      the port (default 3000; 0 picks a free one)
  --host H      the interface (default 127.0.0.1: only this machine can connect); any other
                host also needs its name allowed, which --host adds to the Host allow-list
  --stateless   no sessions: each POST is served on its own
  --json        answer POSTs with one JSON body instead of an SSE stream
  --redis URL   share sessions, resumable streams, rate limits and tasks with every instance
                given the same Redis (redis://HOST:PORT): any instance serves any session.
                A MODULE whose default export is a function is given { rateLimitStore,
                taskStore } for its server's options
  --session-unload-ms MS
                with --redis: an instance lets go of its copy of a session idle there this
                long (default 5000; the next request, anywhere, takes it up from Redis);
                0 keeps the copies

Authentication (HTTP; off unless --jwks is given): every request needs an OAuth 2.1 access token
(Authorization: Bearer), a JWT signed by a key of the JWKS, issued by ISS for this server.
  --jwks URL                  the authorization server's JWKS (jwks_uri)
  --issuer ISS                the issuer the tokens must name (iss)
  --audience URL              this server's resource URL, the tokens' audience (aud); it is also
                              the resource of the metadata at /.well-known/oauth-protected-resource
                              (default http://HOST:PORT/mcp)
  --authorization-server URL  named in the metadata (default: ISS)
  --scope S                   a scope every request needs (the demo: workspace:read; the demo's
                              write_file also needs workspace:write)

  MODULE   a .js/.mjs file, resolved from the current directory, whose default export is a
           toolwire Server, or a (possibly async) function that returns one.
           Without MODULE, serves the demo server: a sandboxed workspace toolbox (list_files,
           read_file, search_files, write_file, workspace_info) rooted at $TOOLWIRE_DEMO_ROOT,
           or the current directory. Paths cannot escape the root ("..", absolute paths,
           symbolic links pointing outside are refused).

Over stdio, the caller is anonymous unless the environment names it: TOOLWIRE_SUBJECT,
TOOLWIRE_SCOPES and TOOLWIRE_ROLES (space-separated) make the principal that tools' access
rules see.

Contract:
  - stdout carries MCP messages only; console.log/info/debug go to stderr while serving.
  - one line on stderr says what is served and how to call it.
  - exits 0 when stdin closes (the client ended the session), once the requests already
    read are answered (within the server's shutdownGraceMs, 10 s by default).
  - SIGTERM or SIGINT: takes no new requests, lets the running ones finish within the
    grace period (then cancels them), exits 0; a second signal stops at once.
  - exits 2 with a message on stderr when MODULE is missing, has no default export, or its
    default export is not a Server or a function returning one; and (--http) when the port is
    taken, naming --port.

Examples:
  ${CLI} serve                            # the demo, rooted at the current directory
  ${CLI} serve ./my-server.mjs
  ${CLI} tools -- ${CLI} serve ./my-server.mjs
  ${CLI} serve --http --port 8080          # the demo at http://127.0.0.1:8080/mcp
  ${CLI} serve --http --port 0             # any free port (the URL is printed)
  ${CLI} serve --http --port 3001 --redis redis://127.0.0.1:6379   # one of many instances

${EXIT_CODES_HELP}
`;
