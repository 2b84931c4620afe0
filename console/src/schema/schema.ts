// JSON Schema as the form reads it: a schema object (or a boolean), local `$ref`s followed (to `$defs`,
// `definitions`, any JSON pointer into the tool's schema, or an `$anchor`), and the value a fresh form
// starts from (defaults, consts, required objects).

export type Schema = boolean | SchemaObject;

export interface SchemaObject {
  [keyword: string]: unknown;
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema | Schema[];
  prefixItems?: Schema[];
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
  default?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function unescape(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function findAnchor(node: unknown, anchor: string, depth = 0): Schema | undefined {
  if (!isObject(node) || depth > 32) return undefined;
  if (node.$anchor === anchor) return node as SchemaObject;
  for (const child of Object.values(node)) {
    const items = Array.isArray(child) ? child : [child];
    for (const item of items) {
      const found = findAnchor(item, anchor, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The schema a local `$ref` points to in `root`, or undefined (remote references are not followed). */
export function resolveRef(root: Schema | undefined, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  const fragment = decodeURIComponent(ref.slice(1));
  if (fragment === '') return root;
  if (!fragment.startsWith('/')) return findAnchor(root, fragment);
  let node: unknown = root;
  for (const token of fragment.slice(1).split('/').map(unescape)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node)) node = node[token];
    else return undefined;
  }
  return typeof node === 'boolean' || isObject(node) ? (node as Schema) : undefined;
}

/** The schema with its `$ref`s followed (siblings of `$ref` kept, over the target's), as an object. */
export function resolve(schema: Schema | undefined, root: Schema | undefined): SchemaObject {
  let current: Schema | undefined = schema;
  let merged: SchemaObject = {};
  for (let hops = 0; hops < 32; hops++) {
    if (current === undefined || current === true) return merged;
    if (current === false) return { ...merged, not: {} };
    const { $ref, ...rest } = current;
    merged = { ...rest, ...merged };
    if (typeof $ref !== 'string') return merged;
    current = resolveRef(root, $ref);
  }
  return merged;
}

/** The types a schema allows, `null` last. */
export function typesOf(schema: SchemaObject): string[] {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length === 0) {
    if (isObject(schema.properties)) return ['object'];
    if (schema.items !== undefined || schema.prefixItems !== undefined) return ['array'];
  }
  return [...types.filter((t) => t !== 'null'), ...types.filter((t) => t === 'null')];
}

/** The value a fresh form starts from: the default, the const, else for required objects their defaults. */
export function initialValue(
  schema: Schema | undefined,
  root: Schema | undefined,
  required: boolean,
  depth = 0,
): unknown {
  const resolved = resolve(schema, root);
  if ('default' in resolved) return structuredClone(resolved.default);
  if ('const' in resolved) return structuredClone(resolved.const);
  if (depth > 16) return undefined;
  const [type] = typesOf(resolved);
  if (type === 'object' && (required || depth === 0)) {
    const value: Record<string, unknown> = {};
    const needed = new Set(resolved.required ?? []);
    for (const [key, sub] of Object.entries(resolved.properties ?? {})) {
      const start = initialValue(sub, root, needed.has(key), depth + 1);
      if (start !== undefined) value[key] = start;
    }
    return value;
  }
  if (type === 'array' && required) return [];
  if (type === 'boolean' && required) return false;
  return undefined;
}

/** How an option of anyOf/oneOf is named in the picker. */
export function branchLabel(branch: Schema, root: Schema | undefined, index: number): string {
  const resolved = resolve(branch, root);
  if (typeof resolved.title === 'string') return resolved.title;
  if (typeof branch === 'object' && typeof branch.$ref === 'string') {
    const name = branch.$ref.split('/').pop();
    if (name) return name;
  }
  if ('const' in resolved) return JSON.stringify(resolved.const);
  const types = typesOf(resolved);
  if (types.length > 0) return types.join(' or ');
  return `option ${index + 1}`;
}
