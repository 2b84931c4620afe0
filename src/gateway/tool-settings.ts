/**
 * What a person sets per exposed tool from the console, until restart: the action taken with its calls
 * before every policy rule (`Gateway.setToolPolicy`), and whether callers see it (`Gateway.setToolHidden`).
 * Kept by upstream and tool name (the upstream's own), so across configuration changes and renames; the
 * policy of each configuration asks them first.
 * @module
 */
import type { ExposedTool } from './exposed-tools.js';
import type { GatewayConfig, PolicyAction } from './gateway-config.js';
import type { ExposedToolView } from './gateway-views.js';
import { Policy, type PolicyDecision } from './policy.js';
import { withSafeIcons } from './safe-icons.js';

export class ToolSettings {
  /** Set per tool from the console: upstream NUL tool → action and who set it, as the policy decides it. */
  readonly #overrides = new Map<string, PolicyDecision>();
  /** Tools hidden from callers: upstream NUL tool. */
  readonly #hidden = new Set<string>();

  /** Whether the tool `tool` of upstream `upstream` is hidden from callers. */
  hidden(upstream: string, tool: string): boolean {
    return this.#hidden.has(toolKey(upstream, tool));
  }

  /** Sets the action for an exposed tool's calls, or with `undefined` returns it to the rules. */
  setAction(entry: ExposedTool, action: PolicyAction | undefined, by: string): void {
    const key = toolKey(entry.upstream.name, entry.tool.name);
    if (action === undefined) this.#overrides.delete(key);
    else this.#overrides.set(key, Object.freeze({ action, reason: `set in the console by ${by}` }));
  }

  /** Hides an exposed tool from callers, or shows it again (its upstream's tools are synced by the caller). */
  setHidden(entry: ExposedTool, hidden: boolean): void {
    const key = toolKey(entry.upstream.name, entry.tool.name);
    if (hidden) this.#hidden.add(key);
    else this.#hidden.delete(key);
  }

  /** An exposed tool as `gateway.tools()` shows it, with what `policy` decides for its calls. */
  view(entry: ExposedTool, policy: Policy): ExposedToolView {
    const key = toolKey(entry.upstream.name, entry.tool.name);
    const view: ExposedToolView = {
      name: entry.name,
      upstream: entry.upstream.name,
      tool: withSafeIcons(entry.tool),
      policy: policy.decide(entry.upstream.name, entry.tool),
      hidden: this.#hidden.has(key),
      listed: entry.handle.enabled,
    };
    const override = this.#overrides.get(key);
    if (override) view.override = override.action;
    return view;
  }

  /** The policy of `config`, which takes the actions set here before its rules. */
  policyOf(config: GatewayConfig): Policy {
    const upstreams = config.upstreams;
    return new Policy({
      ...(config.policy?.rules ? { rules: config.policy.rules } : {}),
      ...(config.policy?.default ? { default: config.policy.default } : {}),
      trusted: (name) => upstreams[name]?.trusted === true,
      // Asked for every call, and nearly always with none set: then no key is built.
      override: (upstream, tool) =>
        this.#overrides.size === 0 ? undefined : this.#overrides.get(toolKey(upstream, tool)),
    });
  }
}

function toolKey(upstream: string, tool: string): string {
  return `${upstream}\u0000${tool}`;
}
