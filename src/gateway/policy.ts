/**
 * The gateway's policy: what happens to a call before anything reaches the upstream. A decision set for
 * one tool (in the console) comes first; then the rules, in order: the first whose globs match the
 * upstream's name and the tool's own name decides. Without a matching rule, the tool's annotations
 * decide — for upstreams marked trusted only, since annotations from an untrusted server are untrusted:
 * read-only tools are allowed, tools that may be destructive or reach an open world ask (the spec's
 * defaults: `destructiveHint` and `openWorldHint` are true unless said otherwise), and a tool declared
 * neither is allowed. Everything else gets the default (`ask`).
 * @module
 */
import { matchGlob, type Tool } from '../index.js';
import { GATEWAY_DEFAULTS, type PolicyAction, type PolicyRule } from './gateway-config.js';

export interface PolicyDecision {
  action: PolicyAction;
  /** Why, in words a person reading an approval or an audit record understands. */
  reason: string;
}

export interface PolicyOptions {
  rules?: readonly PolicyRule[];
  default?: PolicyAction;
  /** Whether an upstream's annotations are trusted (its `trusted` setting). */
  trusted: (upstream: string) => boolean;
  /** A decision set for one tool (from the console), before every rule; undefined when none is set. */
  override?: (upstream: string, tool: string) => PolicyDecision | undefined;
}

export class Policy {
  readonly rules: readonly PolicyRule[];
  readonly fallback: PolicyAction;
  readonly #trusted: (upstream: string) => boolean;
  readonly #override: PolicyOptions['override'];
  /**
   * Decisions made, per tool definition and upstream: rules, trust and annotations are fixed for this
   * policy's life (a new configuration makes a new policy; a tool's new definition is a new object), and a
   * call should not build its reason again (each is kept by the call's audit record).
   */
  readonly #decided = new WeakMap<object, Map<string, PolicyDecision>>();

  constructor(options: PolicyOptions) {
    this.rules = Object.freeze([...(options.rules ?? [])]);
    this.fallback = options.default ?? GATEWAY_DEFAULTS.policyDefault;
    this.#trusted = options.trusted;
    this.#override = options.override;
  }

  /** The decision for a call of `tool` on `upstream` (shared between calls: do not change it). */
  decide(upstream: string, tool: Pick<Tool, 'name' | 'annotations'>): PolicyDecision {
    const set = this.#override?.(upstream, tool.name);
    if (set) return set;
    let byUpstream = this.#decided.get(tool);
    const known = byUpstream?.get(upstream);
    if (known) return known;
    const decision = Object.freeze(this.#decide(upstream, tool));
    if (!byUpstream) this.#decided.set(tool, (byUpstream = new Map<string, PolicyDecision>()));
    byUpstream.set(upstream, decision);
    return decision;
  }

  #decide(upstream: string, tool: Pick<Tool, 'name' | 'annotations'>): PolicyDecision {
    for (const [index, rule] of this.rules.entries()) {
      if (rule.upstream !== undefined && !matchGlob(rule.upstream, upstream)) continue;
      if (!matchGlob(rule.tool, tool.name)) continue;
      const on = `${rule.upstream ?? '*'}.${rule.tool}`;
      return { action: rule.action, reason: `rule ${index + 1} (${on}=${rule.action})` };
    }
    if (!this.#trusted(upstream)) {
      return {
        action: this.fallback,
        reason: `no rule matched and upstream ${upstream} is not trusted (default: ${this.fallback})`,
      };
    }
    const hints = tool.annotations;
    if (hints?.readOnlyHint === true)
      return { action: 'allow', reason: 'a read-only tool of a trusted upstream' };
    if (hints?.destructiveHint !== false) {
      return { action: 'ask', reason: 'the tool may be destructive (destructiveHint)' };
    }
    if (hints.openWorldHint !== false) {
      return { action: 'ask', reason: 'the tool reaches an open world (openWorldHint)' };
    }
    return {
      action: 'allow',
      reason: 'a trusted upstream declares the tool neither destructive nor open-world',
    };
  }
}
