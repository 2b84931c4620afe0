/**
 * Namespaced names: an upstream's tool `read_file` becomes `files__read_file` downstream — its prefix,
 * the separator, its own name — in the characters LLM APIs accept for function names
 * (`^[a-zA-Z0-9_-]{1,64}$`, the default) or under the MCP rule (`^[A-Za-z0-9_.-]{1,128}$`). Characters
 * the rule does not allow become `_`; a name that is still too long is refused, and so is a name another
 * tool already has (a collision is an error, never a silent overwrite).
 * @module
 */

export type ToolNameRule = 'llm' | 'mcp';

/** What LLM APIs accept as a function name (the gateway's default). */
export const LLM_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MCP_TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

const RULES: Record<ToolNameRule, { pattern: RegExp; other: RegExp; max: number }> = {
  llm: { pattern: LLM_TOOL_NAME_PATTERN, other: /[^a-zA-Z0-9_-]/g, max: 64 },
  mcp: { pattern: MCP_TOOL_NAME_PATTERN, other: /[^A-Za-z0-9_.-]/g, max: 128 },
};

/** A namespaced name, or why there is none. */
export type NamedTool = { ok: true; name: string } | { ok: false; reason: string };

export class ToolNamer {
  readonly separator: string;
  readonly rule: ToolNameRule;

  constructor(separator: string, rule: ToolNameRule) {
    this.separator = separator;
    this.rule = rule;
  }

  /** The downstream name of `name` from the upstream whose prefix is `prefix`. */
  name(prefix: string, name: string): NamedTool {
    const { pattern, other, max } = RULES[this.rule];
    const joined = `${prefix}${this.separator}${name}`.replace(other, '_');
    if (joined.length > max) {
      return {
        ok: false,
        reason: `"${prefix}${this.separator}${name}" is longer than the ${max} characters a tool name may have here`,
      };
    }
    if (!pattern.test(joined)) return { ok: false, reason: `"${joined}" does not match ${String(pattern)}` };
    return { ok: true, name: joined };
  }
}
