/**
 * The usage of `toolwire gateway` (`--help`, and `toolwire help gateway`): its flags, authentication, how
 * it stops, the API token, OAuth-protected upstreams, examples and exit codes.
 * @module
 */
import { CLI } from './command-name.js';
import { EXIT_CODES_HELP } from './exit-code.js';

export const GATEWAY_HELP = `Usage: toolwire gateway [--config FILE] [--upstream NAME=URL | --upstream 'NAME=command args']...
                        [--policy NAME.TOOL=allow|ask|deny]... [--default ACTION] [--trust NAME]...
                        [--http [--port P] [--host H] [--stateless] [--json] | --stdio [--api-port P]]
                        [--allowed-host HOST]... [--allowed-origin URL]... [--trust-forwarded-proto]
                        [--jwks URL --issuer ISS [--audience URL] [--authorization-server URL] [--scope S]]
                        [--approval-timeout MS] [--audit FILE] [--redis URL [--session-unload-ms MS]]
                        [--print-config]
                        [--demo | --upstream NAME -- command args...]

One MCP endpoint in front of many MCP servers. Their tools appear namespaced (files__read_file),
and every call passes the policy: allowed, denied, or held until a person approves it from the
decision API (toolwire approvals, or the HTTP API at /api with the token printed at start).

  --config FILE        a JSON configuration (schema: gateway-config.schema.json in the package);
                       changes on disk are applied without a restart, but for "redis" and "http"
                       (--redis, --allowed-host, --allowed-origin, --trust-forwarded-proto): those
                       are read at start, a change is reported on stderr and needs a restart
  --upstream NAME=URL  an upstream over Streamable HTTP (falling back to HTTP+SSE)
  --upstream 'NAME=command args'   an upstream spawned over stdio (split on spaces, no shell)
  --upstream NAME -- command args  the same, with everything after "--" (one upstream, last)
  --policy NAME.TOOL=ACTION        a rule before the file's (globs: files.write_*=ask, *.delete_*=deny)
  --default ACTION     for calls no rule or trusted annotation decides (default ask)
  --trust NAME         let the upstream's tool annotations decide (read-only: allow; destructive: ask)
  --http               serve MCP over HTTP at http://HOST:PORT/mcp, the API at /api and the web
                       console at /console/ (PORT, else 3000)
  --stdio              serve MCP over stdio (the default; for hosts that spawn a command); the API
                       listens on --api-port (default: any free port, printed on stderr)
  --host H             the interface (default 127.0.0.1)
  --stateless          (--http) no sessions: each POST is served on its own
  --json               (--http) answer POSTs with one JSON body instead of an SSE stream
  --allowed-host HOST  a Host header the listener answers besides the loopback names and --host's
                       (repeatable; e.g. gateway.example.com, a proxy's public name): others get 403
  --allowed-origin URL an Origin browsers may send, instead of the loopback ones (repeatable; e.g.
                       https://app.example.com, no path): the MCP endpoint's and the API's check, and
                       the console's cross-site check; an allowed host's own origin always passes
  --trust-forwarded-proto  the API takes the browser's scheme from X-Forwarded-Proto: only behind a
                       TLS terminator that sets it (the console then expects an https Origin, and its
                       cookie is Secure)
  --approval-timeout MS  how long an approval waits (default 120000), then the call fails
  --audit FILE         append every audit record to FILE as JSON lines
  --redis URL          share MCP sessions, approvals, "approve always" grants, audit records and live
                       events with every gateway started with the same Redis (redis://HOST:PORT): any
                       one serves a session, a call held by one is decided through any other's API
  --session-unload-ms MS  (--http, Redis) an instance lets go of its copy of an MCP session idle there
                       this long (default 5000; the next request, anywhere, takes it up from Redis);
                       0 keeps the copies
  --print-config       print the "mcpServers" entry a host needs to start this gateway, and exit
  --demo               the demo workspace server as the one upstream, "demo" (what npm start runs; HTTP
                       unless --stdio), rooted at $TOOLWIRE_DEMO_ROOT, else a fresh folder under the
                       temporary directory: demo.write_file=ask, default allow; --policy, --default
                       and --trust apply on top

Authentication (off unless --jwks is given): requests to the MCP endpoint (--http) need an OAuth 2.1
access token (Authorization: Bearer), a JWT signed by a key of the JWKS, issued by ISS for this
gateway; the decision API takes such tokens too, from principals with the role "approver" (they
decide) or "watcher" (they read), besides the API token.
  --jwks URL                  the authorization server's JWKS (jwks_uri)
  --issuer ISS                the issuer the tokens must name (iss)
  --audience URL              the gateway's MCP URL, the tokens' audience (aud) and the resource of
                              /.well-known/oauth-protected-resource (default http://HOST:PORT/mcp)
  --authorization-server URL  named in the metadata (default: ISS)
  --scope S                   a scope every MCP request needs

SIGTERM or SIGINT: no new requests; the calls running upstream get the grace period (10 s) to
finish and are answered, pending approvals end with an isError result; then the upstreams are
stopped and the gateway exits 0. A second signal stops at once.

The API token is TOOLWIRE_TOKEN when set, else generated and printed once at start. Instances behind one
load balancer share TOOLWIRE_TOKEN, --redis and TOOLWIRE_REQUEST_STATE_SECRET (the key that signs the
requestState of a question relayed in the stateless era; default: random per process). The console's
link, printed at start, signs one browser in once; sign in elsewhere with the API token. Over stdio the
caller's identity comes from TOOLWIRE_SUBJECT / TOOLWIRE_SCOPES / TOOLWIRE_ROLES, as with serve.

OAuth-protected HTTP upstreams (an "oauth" setting in the configuration, or tokens that
"${CLI} login URL" kept for the URL) use the token file that login keeps (0600,
$TOOLWIRE_OAUTH_FILE else ~/.config/toolwire/oauth.json); one that needs a person to sign in says so,
and the console's Upstreams view has a "Sign in" button for it.

Examples:
  ${CLI} gateway --http --policy 'files.write_file=ask' --default allow --upstream files -- ${CLI} serve
  ${CLI} gateway --config gateway.json --print-config
  ${CLI} gateway --http --config gateway.json --allowed-host gateway.example.com \\
      --trust-forwarded-proto                                                   (behind nginx with TLS)
  ${CLI} approvals list --gateway http://127.0.0.1:3000

${EXIT_CODES_HELP}
`;
