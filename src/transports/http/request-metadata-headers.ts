/**
 * The request metadata headers of the 2026-07-28 Streamable HTTP binding, both ends: what a client puts
 * on a stateless-era POST (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) and the check
 * a server makes that they match the body (a mismatch is -32020 HeaderMismatch, HTTP 400). Web-standard
 * only.
 * @module
 */
import type { HeaderReader } from './http-exchange.js';
import { echoedName } from '../../protocol/echoed-name.js';
import type { JsonObject, JsonRpcRequest } from '../../protocol/jsonrpc.js';
import {
  scanMcpHeaderDeclarations,
  type McpHeaderDeclaration,
} from '../../protocol/types/mcp-header-declarations.js';
import { META } from '../../protocol/types/stateless.js';
import { decodeHeaderValue, encodeHeaderValue } from './header-value.js';

const MCP_PARAM_PREFIX = 'Mcp-Param-';

/**
 * The `x-mcp-header` declarations of a tool's inputSchema, scanned once per schema object: a server's
 * registered schemas and a client's listed ones do not change once built, and every call needs them.
 */
const declarationsBySchema = new WeakMap<object, readonly McpHeaderDeclaration[]>();

function declarationsOf(inputSchema: unknown): readonly McpHeaderDeclaration[] {
  if (typeof inputSchema !== 'object' || inputSchema === null) return [];
  let found = declarationsBySchema.get(inputSchema);
  if (!found) {
    found = Object.freeze(scanMcpHeaderDeclarations(inputSchema).declarations);
    declarationsBySchema.set(inputSchema, found);
  }
  return found;
}

/** The body field `Mcp-Name` mirrors, for the methods that have one. */
const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // the Tasks extension (SEP-2663)
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** The value `Mcp-Name` mirrors for this request, when its method has one and the body carries it. */
export function mcpNameOf(method: string, params: JsonObject | undefined): string | undefined {
  const field = NAME_SOURCE[method];
  const value = field === undefined ? undefined : params?.[field];
  return typeof value === 'string' ? value : undefined;
}

/** The `_meta` protocol version of a stateless-era request. */
export function metaVersionOf(params: JsonObject | undefined): unknown {
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null ? (meta as JsonObject)[META.protocolVersion] : undefined;
}

/**
 * The headers a stateless-era request carries (client side). `inputSchema` is the called tool's, for
 * `tools/call`: each of its `x-mcp-header` parameters with a value becomes `Mcp-Param-{Name}`.
 */
export function requestMetadataHeaders(
  message: JsonRpcRequest,
  inputSchema?: unknown,
): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-method': message.method };
  const version = metaVersionOf(message.params);
  if (typeof version === 'string') headers['mcp-protocol-version'] = version;
  const name = mcpNameOf(message.method, message.params);
  if (name !== undefined) headers['mcp-name'] = encodeHeaderValue(name);
  if (message.method === 'tools/call' && inputSchema !== undefined) {
    const args = message.params?.arguments;
    for (const declaration of declarationsOf(inputSchema)) {
      const text = paramHeaderText(argumentAt(args, declaration.path));
      if (text !== undefined) headers[`${MCP_PARAM_PREFIX}${declaration.header}`] = encodeHeaderValue(text);
    }
  }
  return headers;
}

const mismatch = (header: string, sent: string, body: unknown) =>
  `Header mismatch: ${header} header value ${echoedName(JSON.stringify(sent))} does not match body value ${echoedName(JSON.stringify(body) ?? 'undefined')}`;
const missing = (header: string) => `Header mismatch: the ${header} header is required`;
const malformed = (header: string) =>
  `Header mismatch: the ${header} header holds invalid characters or an invalid Base64 value`;

/** Why `MCP-Protocol-Version` does not match the body's `_meta` version, or undefined. */
export function protocolVersionMismatch(headers: HeaderReader, version: string): string | undefined {
  const sent = headers.get('mcp-protocol-version');
  if (sent === null) return missing('MCP-Protocol-Version');
  return sent === version ? undefined : mismatch('MCP-Protocol-Version', sent, version);
}

/**
 * Why `Mcp-Method`, `Mcp-Name` or an `Mcp-Param-*` header does not match the body (server side), or
 * undefined. `inputSchema` is the called tool's (for `tools/call`), when the server knows the tool.
 */
export function metadataMismatch(
  headers: HeaderReader,
  message: JsonRpcRequest,
  inputSchema: unknown,
): string | undefined {
  const method = headers.get('mcp-method');
  if (method === null) return missing('Mcp-Method');
  if (method !== message.method) return mismatch('Mcp-Method', method, message.method);
  const name = mcpNameOf(message.method, message.params);
  const sentName = headers.get('mcp-name');
  if (name !== undefined || (sentName !== null && NAME_SOURCE[message.method] !== undefined)) {
    if (sentName === null) return missing('Mcp-Name');
    const decoded = decodeHeaderValue(sentName);
    if (decoded === undefined) return malformed('Mcp-Name');
    if (decoded !== name) return mismatch('Mcp-Name', decoded, name ?? null);
  }
  if (message.method !== 'tools/call' || inputSchema === undefined) return undefined;
  const args = message.params?.arguments;
  for (const declaration of declarationsOf(inputSchema)) {
    const problem = paramMismatch(headers, declaration, argumentAt(args, declaration.path));
    if (problem) return problem;
  }
  return undefined;
}

/** A strict decimal number, as an integer header may spell it (`42`, `-7`, `42.0`). */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function paramMismatch(
  headers: HeaderReader,
  declaration: McpHeaderDeclaration,
  value: unknown,
): string | undefined {
  const header = `${MCP_PARAM_PREFIX}${declaration.header}`;
  const text = paramHeaderText(value);
  const sent = headers.get(header);
  // No value (absent, null, or not a primitive): the header is not expected, and one sent does not
  // match the body.
  if (sent === null) return text === undefined ? undefined : missing(header);
  const decoded = decodeHeaderValue(sent);
  if (decoded === undefined) return malformed(header);
  if (text === undefined) return mismatch(header, decoded, value ?? null);
  const same =
    typeof value === 'number' ? DECIMAL.test(decoded) && Number(decoded) === value : decoded === text;
  return same ? undefined : mismatch(header, decoded, value);
}

/** The value at `path` in a call's arguments (own properties only), or undefined. */
function argumentAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * The header text of an argument: strings as they are, integers in decimal, booleans `true`/`false`.
 * Undefined (no header) for null, a missing value, other types and integers beyond ±(2^53−1).
 */
function paramHeaderText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) {
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? undefined : String(value);
  }
  return undefined;
}
