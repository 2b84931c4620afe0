// JSON Schema as the form reads it: a schema object (or a boolean), local `$ref`s followed (to `$defs`,
// `definitions`, any JSON pointer into the tool's schema, or an `$anchor`), and the value a fresh form
// starts from (defaults, consts, required objects). The schema is an upstream's, perhaps hostile: a fresh
// value follows no `$ref` already being expanded and builds at most MAX_INITIAL_NODES nodes, and
// `formSize` says whether a form of it can be drawn at all.

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

const anchors = new WeakMap<object, Map<string, Schema | undefined>>();

function anchorIn(root: Schema | undefined, anchor: string): Schema | undefined {
  if (!isObject(root)) return undefined;
  let known = anchors.get(root);
  if (!known) anchors.set(root, (known = new Map<string, Schema | undefined>()));
  if (!known.has(anchor)) known.set(anchor, findAnchor(root, anchor));
  return known.get(anchor);
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
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined; // a malformed % escape
  }
  if (fragment === '') return root;
  if (!fragment.startsWith('/')) return anchorIn(root, fragment);
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

/** The most nodes (values) a fresh value is built of. */
const MAX_INITIAL_NODES = 1_000;

/** The value a fresh form starts from: the default, the const, else for required objects their defaults. */
export function initialValue(
  schema: Schema | undefined,
  root: Schema | undefined,
  required: boolean,
): unknown {
  return startFrom(schema, root, required, 0, { nodes: 0, expanding: new Set() });
}

function startFrom(
  schema: Schema | undefined,
  root: Schema | undefined,
  required: boolean,
  depth: number,
  run: { nodes: number; expanding: Set<string> },
): unknown {
  if (++run.nodes > MAX_INITIAL_NODES) return undefined;
  const resolved = resolve(schema, root);
  if ('default' in resolved) return structuredClone(resolved.default);
  if ('const' in resolved) return structuredClone(resolved.const);
  if (depth > 16) return undefined;
  const [type] = typesOf(resolved);
  if (type === 'object' && (required || depth === 0)) {
    // A $ref already being expanded on this path would expand again without end: its value stays empty.
    const ref = isObject(schema) && typeof schema.$ref === 'string' ? schema.$ref : undefined;
    if (ref !== undefined && run.expanding.has(ref)) return {};
    if (ref !== undefined) run.expanding.add(ref);
    const value: Record<string, unknown> = {};
    const needed = new Set(Array.isArray(resolved.required) ? resolved.required : []);
    for (const [key, sub] of Object.entries(isObject(resolved.properties) ? resolved.properties : {})) {
      const start = startFrom(sub, root, needed.has(key), depth + 1, run);
      if (start !== undefined) value[key] = start;
    }
    if (ref !== undefined) run.expanding.delete(ref);
    return value;
  }
  if (type === 'array' && required) return [];
  if (type === 'boolean' && required) return false;
  return undefined;
}

/** The most fields a form is drawn with (more: the arguments are edited as JSON). */
export const MAX_FORM_FIELDS = 2_000;
/** Deeper fields are edited as JSON. */
export const MAX_FORM_DEPTH = 24;

/**
 * Whether a form of `schema` stays within MAX_FORM_FIELDS fields however its options are picked and an
 * item of each array added: the fields of an object's properties add up, an anyOf/oneOf counts its largest
 * option. The count stops as soon as it passes the limit.
 */
export function formFits(schema: Schema | undefined, root: Schema | undefined): boolean {
  const run = { visits: 0 };
  return fieldsOf(schema, root, 0, run) <= MAX_FORM_FIELDS && run.visits <= MAX_FORM_FIELDS * 10;
}

function fieldsOf(
  schema: Schema | undefined,
  root: Schema | undefined,
  depth: number,
  run: { visits: number },
): number {
  if (++run.visits > MAX_FORM_FIELDS * 10) return Infinity;
  if (depth > MAX_FORM_DEPTH) return 1;
  const resolved = resolve(schema, root);
  const branches = resolved.oneOf ?? resolved.anyOf;
  let count = 1;
  if (Array.isArray(branches) && branches.length > 0) {
    let largest = 0;
    for (const branch of branches) {
      largest = Math.max(largest, fieldsOf(branch, root, depth + 1, run));
      if (largest > MAX_FORM_FIELDS) return Infinity;
    }
    count += largest;
  }
  if (isObject(resolved.properties)) {
    for (const sub of Object.values(resolved.properties)) {
      count += fieldsOf(sub as Schema, root, depth + 1, run);
      if (count > MAX_FORM_FIELDS) return Infinity;
    }
  }
  const items = [
    ...(Array.isArray(resolved.prefixItems) ? resolved.prefixItems : []),
    ...(Array.isArray(resolved.items)
      ? resolved.items
      : resolved.items === undefined
        ? []
        : [resolved.items]),
  ];
  for (const item of items) {
    count += fieldsOf(item, root, depth + 1, run);
    if (count > MAX_FORM_FIELDS) return Infinity;
  }
  return count;
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
