/**
 * What `toolwire gateway` says on stderr: at start, what is served, the decision API's URL and token (the
 * token once), how to connect a host and approve (`introduce`); then one line per approval asked and
 * decided, and per upstream going down or up (`narrate`).
 * @module
 */
import { loginLinkId, type Gateway, type GatewayEvent, type GatewayHttpHandle } from '../gateway/index.js';
import { CLI } from './command-name.js';

export function introduce(
  gateway: Gateway,
  handle: GatewayHttpHandle,
  say: (line: string) => void,
  generated: boolean,
  http: boolean,
): void {
  const upstreams = gateway
    .upstreams()
    .map(
      (u) =>
        `${u.name}: ${u.status}${u.status === 'ready' ? `, ${u.tools.length} tools` : u.error ? ` (${u.error})` : ''}`,
    );
  const base = handle.apiUrl.replace(/\/api$/, '');
  say(`${upstreams.length} upstream${upstreams.length === 1 ? '' : 's'} (${upstreams.join('; ')})`);
  say(http ? `MCP endpoint: ${handle.url}` : 'MCP over stdio');
  say(`decision API: ${handle.apiUrl}`);
  const redis = gateway.config.redis;
  if (redis !== undefined) {
    const url = new URL(typeof redis === 'string' ? redis : redis.url);
    const prefix = typeof redis === 'string' ? undefined : redis.prefix;
    say(
      `sessions, approvals, grants, audit and events shared on Redis at ${url.host}${prefix ? ` (prefix ${prefix})` : ''}`,
    );
  }
  const consoleUrl = handle.consoleUrl();
  if (consoleUrl)
    say(
      `console (the link signs one browser in, once; its decisions read console-link:${loginLinkId(consoleUrl)}): ${consoleUrl}`,
    );
  if (generated) say(`API token (shown only now): export TOOLWIRE_TOKEN=${handle.api.token}`);
  else say('API token: the one in TOOLWIRE_TOKEN');
  if (http)
    say(`connect a host: {"mcpServers": {"toolwire-gateway": {"type": "http", "url": "${handle.url}"}}}`);
  say(`approve from another terminal (with TOOLWIRE_TOKEN set): ${CLI} approvals list --gateway ${base}`);
}

/** One line per approval asked or decided, and per upstream status change. */
export function narrate(event: GatewayEvent, handle: GatewayHttpHandle, say: (line: string) => void): void {
  const base = handle.apiUrl.replace(/\/api$/, '');
  if (event.type === 'approval.pending') {
    const { approval } = event;
    const args = JSON.stringify(approval.arguments);
    say(
      `approval ${approval.id} pending: ${approval.upstream}.${approval.tool} ${args.length > 200 ? `${args.slice(0, 200)}…` : args}` +
        `\n  ${CLI} approvals approve ${approval.id} --gateway ${base}  (or: deny ${approval.id} --reason TEXT)`,
    );
  } else if (event.type === 'approval.decided') {
    const { outcome } = event;
    const by = 'decidedBy' in outcome ? ` by ${outcome.decidedBy}` : '';
    say(
      `approval ${event.approval.id}: ${outcome.decision}${'always' in outcome && outcome.always ? ' (always)' : ''}${by}`,
    );
  } else if (event.type === 'upstream.status' && (event.status === 'down' || event.status === 'ready')) {
    say(`upstream ${event.upstream}: ${event.status}${event.error ? ` (${event.error})` : ''}`);
  } else if (event.type === 'upstream.status' && event.status === 'needs-sign-in') {
    say(`upstream ${event.upstream} needs a person to sign in: the console's Upstreams view, "Sign in"`);
  }
}
