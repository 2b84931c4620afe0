/**
 * `x-mcp-header` (2026-07-28): a property of a tool's `inputSchema` may ask for its argument value to be
 * mirrored into an `Mcp-Param-{name}` HTTP header. The declarations are checked here, once, for the client
 * (which drops tools with invalid ones from `tools/list`) and the HTTP client transport (which builds the
 * headers from the valid ones).
 *
 * A declaration is valid when its value is an RFC 9110 token, unique case-insensitively within the schema,
 * on a `string`, `integer` or `boolean` property, statically reachable from the root through `properties`
 * keys only (never under `items`, composition or conditional keywords, `$ref` targets, …).
 * @module
 */

/** One valid declaration: the header name part and the argument path it mirrors. */
export interface McpHeaderDeclaration {
  /** The `x-mcp-header` value: the header is `Mcp-Param-{header}`. */
  header: string;
  /** Property names from the arguments object down to the value. */
  path: string[];
  type: 'string' | 'integer' | 'boolean';
}

export interface McpHeaderScan {
  declarations: McpHeaderDeclaration[];
  /** Why the schema's declarations are invalid (empty when they are all valid). */
  problems: string[];
}

export const X_MCP_HEADER = 'x-mcp-header';

/** RFC 9110 `token` (`1*tchar`). */
export const MCP_HEADER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const HEADER_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'boolean']);

/** Keywords whose subschemas are not statically reachable; a declaration under them is invalid. */
const SCHEMA_KEYWORDS = [
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'unevaluatedItems',
  'additionalProperties',
  'unevaluatedProperties',
  'patternProperties',
  'propertyNames',
  'dependentSchemas',
  'dependencies',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
  'contentSchema',
] as const;

/** Keywords that hold a map of name → subschema. */
const SCHEMA_MAPS: ReadonlySet<string> = new Set([
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  '$defs',
  'definitions',
]);

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const where = (path: readonly string[]) => (path.length === 0 ? 'the schema root' : path.join('.'));

/** Every `x-mcp-header` declaration of a tool's `inputSchema`, and what makes any of them invalid. */
export function scanMcpHeaderDeclarations(inputSchema: unknown): McpHeaderScan {
  const declarations: McpHeaderDeclaration[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();

  const declare = (node: Node, path: string[], reachable: boolean) => {
    const value = node[X_MCP_HEADER];
    if (!reachable || path.length === 0) {
      problems.push(
        `${where(path)}: x-mcp-header is allowed only on properties reachable through "properties" alone`,
      );
      return;
    }
    if (typeof value !== 'string' || !MCP_HEADER_TOKEN.test(value)) {
      problems.push(`${where(path)}: x-mcp-header ${JSON.stringify(value)} is not an HTTP token`);
      return;
    }
    const type = node.type;
    if (typeof type !== 'string' || !HEADER_TYPES.has(type)) {
      problems.push(
        `${where(path)}: x-mcp-header is allowed only on string, integer or boolean properties (type ${JSON.stringify(type ?? null)})`,
      );
      return;
    }
    const lower = value.toLowerCase();
    const earlier = seen.get(lower);
    if (earlier !== undefined) {
      problems.push(`${where(path)}: x-mcp-header "${value}" repeats "${earlier}" (case-insensitively)`);
      return;
    }
    seen.set(lower, value);
    declarations.push({ header: value, path, type: type as McpHeaderDeclaration['type'] });
  };

  const visit = (node: unknown, path: string[], reachable: boolean, depth: number): void => {
    if (!isNode(node) || depth > 64) return;
    if (X_MCP_HEADER in node) declare(node, path, reachable);
    const properties = node.properties;
    if (isNode(properties)) {
      for (const [name, child] of Object.entries(properties))
        visit(child, [...path, name], reachable, depth + 1);
    }
    for (const keyword of SCHEMA_KEYWORDS) {
      const sub = node[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? (sub as unknown[])
        : SCHEMA_MAPS.has(keyword) && isNode(sub)
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) visit(branch, [...path, `<${keyword}>`], false, depth + 1);
    }
  };

  visit(inputSchema, [], true, 0);
  return { declarations, problems };
}

/** Why a tool's `x-mcp-header` declarations are invalid; an empty list when they are all valid. */
export function validateMcpHeaderDeclarations(inputSchema: unknown): string[] {
  return scanMcpHeaderDeclarations(inputSchema).problems;
}
