/**
 * When an MCP server without protected resource metadata may be taken for a 2025-03-26 server, whose
 * authorization server is at its own origin (`/.well-known/oauth-authorization-server` there, else
 * `/authorize`, `/token` and `/register`). From 2025-06-18 on, "MCP clients **MUST** use OAuth 2.0
 * Protected Resource Metadata for authorization server discovery", and 2025-11-25 says how to find it: "use
 * the resource metadata URL from the parsed `WWW-Authenticate` headers when present; otherwise, they
 * **MUST** fall back to constructing and requesting the well-known URIs" — and when the root one has none,
 * "Abort or use pre-configured values". So the origin is tried only for a server that says nothing of
 * resource metadata: its 401 named no `resource_metadata` URL (a server that names one speaks RFC 9728: a
 * document missing there is an error, not an older server), and the request is not of a session
 * negotiated at 2025-06-18 or later (its `MCP-Protocol-Version`). A 2026-07-28 header says nothing of the
 * server: the era probe sends it to servers of every era before anything is negotiated.
 * @module
 */
import { isHandshakeRevision } from '../../../protocol/revisions/index.js';

/** The revisions whose authorization (2025-03-26's; 2024-11-05 has none) finds no resource metadata. */
const ORIGIN_DISCOVERY_REVISIONS: readonly string[] = ['2024-11-05', '2025-03-26'];

/**
 * Why the MCP server at `resource`, which has no protected resource metadata at its well-known URLs, may
 * not be taken for a 2025-03-26 server (the message of an `OAuthError`); `undefined` when it may.
 * `challenged`: the `resource_metadata` URL of its 401, if it named one; `revision`: the
 * `MCP-Protocol-Version` of the refused request, if it had one.
 */
export function legacyDiscoveryRefusal(
  resource: URL,
  challenged: string | undefined,
  revision: string | undefined,
): string | undefined {
  if (challenged !== undefined) {
    return (
      `${resource.href} named its protected resource metadata (${challenged}), and neither there nor at its ` +
      'well-known URLs is there any: no authorization server is known (its origin is not taken for one, ' +
      'as for a 2025-03-26 server, which names none)'
    );
  }
  if (isHandshakeRevision(revision) && !ORIGIN_DISCOVERY_REVISIONS.includes(revision)) {
    return (
      `${resource.href} publishes no protected resource metadata (RFC 9728), which protocol ${revision} ` +
      'requires to find its authorization server: its origin is not taken for one (only a 2025-03-26 ' +
      'server is)'
    );
  }
  return undefined;
}
