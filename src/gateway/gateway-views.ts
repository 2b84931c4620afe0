/**
 * What the decision API, the console and `gateway.upstreams()` / `gateway.tools()` show of an upstream and
 * of an exposed tool.
 * @module
 */
import type { Implementation, ServerCapabilities, Tool } from '../index.js';
import type { PolicyAction } from './gateway-config.js';
import type { UpstreamStatus } from './gateway-events.js';
import type { PolicyDecision } from './policy.js';
import { withSafeIcons } from './safe-icons.js';
import type { Upstream } from './upstream.js';

/** An upstream as the decision API and `gateway.upstreams()` describe it. */
export interface UpstreamView {
  name: string;
  status: UpstreamStatus;
  error?: string;
  transport: 'stdio' | 'http';
  /** The revision spoken, once connected. */
  protocolVersion?: string;
  /** The namespaced names of its exposed tools. */
  tools: string[];
  /**
   * How it gets OAuth tokens, when it does: `person` (a person signs in: `signIn`, the console's "Sign
   * in"), or `client` (the gateway's own client credentials).
   */
  oauth?: 'person' | 'client';
  /** What the server said of itself when it connected (absent until it did; icons of safe schemes only). */
  serverInfo?: Implementation;
  capabilities?: ServerCapabilities;
  instructions?: string;
  /** How many tools, resources, resource templates and prompts it lists. */
  counts: { tools: number; resources: number; templates: number; prompts: number };
}

/** An exposed tool as the decision API (`GET /api/tools`) and `gateway.tools()` describe it. */
export interface ExposedToolView {
  /** The namespaced name callers use. */
  name: string;
  upstream: string;
  /** The tool as the upstream lists it (its own name; icons of safe schemes only). */
  tool: Tool;
  /** What the policy decides for its calls now, and why. */
  policy: PolicyDecision;
  /** The action set for this tool with `setToolPolicy`, if any (it comes before every rule). */
  override?: PolicyAction;
  /** Hidden from callers with `setToolHidden` (out of `tools/list`). */
  hidden: boolean;
  /** Whether callers see it now (not hidden, and its upstream is ready). */
  listed: boolean;
}

/** The view of `upstream`, whose exposed tools are `tools` (their namespaced names). */
export function upstreamView(upstream: Upstream, tools: string[]): UpstreamView {
  const view: UpstreamView = {
    name: upstream.name,
    status: upstream.status,
    transport: 'url' in upstream.config ? 'http' : 'stdio',
    tools,
    counts: {
      tools: upstream.tools.length,
      resources: upstream.resources.length,
      templates: upstream.templates.length,
      prompts: upstream.prompts.length,
    },
  };
  if (upstream.error !== undefined) view.error = upstream.error;
  const oauth = upstream.oauth;
  if (oauth && (oauth.configured || upstream.status === 'needs-sign-in')) {
    view.oauth = oauth.needsPerson ? 'person' : 'client';
  }
  const client = upstream.client;
  if (client?.protocolVersion !== undefined) view.protocolVersion = client.protocolVersion;
  if (client?.serverInfo !== undefined) view.serverInfo = withSafeIcons(client.serverInfo);
  if (client?.serverCapabilities !== undefined) view.capabilities = client.serverCapabilities;
  if (client?.instructions !== undefined) view.instructions = client.instructions;
  return view;
}
