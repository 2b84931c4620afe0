/**
 * Shapes the questions a server asks a handshake-era client (`elicitation/create`, `sampling/createMessage`)
 * into what the client's revision defines, or says why one cannot be asked there: a client never receives a
 * shape its revision lacks. What changes, before 2025-11-25 (`elicitationModes`, `samplingTools`):
 * - Capabilities: `elicitation.form` / `.url` and `sampling.tools` / `.context` do not exist; any
 *   `elicitation` declaration means form mode, so URL mode and sampling with `tools` are never sent.
 * - Sampling: a message's content is one block (a list of one is unwrapped; a list of any other length is
 *   refused), `tool_use` / `tool_result` blocks are refused, a message's `_meta` is dropped; `audio` is
 *   refused before 2025-03-26; each block is shaped like a tool result's (`shapeContent`).
 * - Elicitation (2025-06-18): no `mode`; the form's `$schema` and every `default` but a boolean's are
 *   dropped, a titled single-select (`oneOf` / `anyOf` of `{ const, title }`) becomes `enum` + `enumNames`
 *   (the same choice, the same labels), and a multi-select (`type: "array"`) is refused.
 * And in every revision (`completeForm`): a form without `requestedSchema` gets an empty one, and one
 * without `properties` gets `{}`, as every revision with elicitation requires.
 * @module
 */
import { isJsonObject, type JsonObject } from '../jsonrpc.js';
import type { ContentBlock } from '../types/content.js';
import type { ClientCapabilities } from '../types/lifecycle.js';
import type { RevisionFeatures } from './features.js';
import { shapeContent } from './shape.js';

/** A question as one revision has it, or why it cannot be asked there. */
export type ShapedInput = { params: JsonObject | undefined } | { refused: string };

const LATEST_SHAPES = '2025-11-25';

/**
 * The client capabilities a revision has, of those declared: before 2025-11-25 the members of
 * `elicitation` and `sampling` are none of the protocol's (`elicitation: { url: {} }` is form mode).
 */
export function revisionCapabilities(declared: ClientCapabilities, f: RevisionFeatures): ClientCapabilities {
  let out = declared;
  const { elicitation, sampling } = declared;
  if (!f.elicitationModes && isJsonObject(elicitation) && ('form' in elicitation || 'url' in elicitation)) {
    const { form: _form, url: _url, ...rest } = elicitation;
    out = { ...out, elicitation: rest };
  }
  if (!f.samplingTools && isJsonObject(sampling) && ('tools' in sampling || 'context' in sampling)) {
    const { tools: _tools, context: _context, ...rest } = sampling;
    out = { ...out, sampling: rest };
  }
  return out;
}

const CONTEXT_VALUES: ReadonlySet<unknown> = new Set(['thisServer', 'allServers']);

/**
 * A sampling request's `includeContext` of `"thisServer"` or `"allServers"` left out for a client that did
 * not declare `sampling.context`, in revisions that have that capability (2025-11-25 on; the values are
 * deprecated there, and servers SHOULD only use them with a client that declared it). A client may ignore
 * the request anyway, so leaving it out changes nothing a client could not.
 */
export function declaredContext(
  method: string,
  params: JsonObject | undefined,
  capabilities: ClientCapabilities,
): JsonObject | undefined {
  if (method !== 'sampling/createMessage' || !CONTEXT_VALUES.has(params?.includeContext)) return params;
  const { sampling } = capabilities;
  if (!params || (isJsonObject(sampling) && sampling.context !== undefined)) return params;
  const { includeContext: _left, ...rest } = params;
  return rest;
}

/** A form-mode elicitation with the `requestedSchema` (and its `properties`) every revision requires. */
export function completeForm<T extends { mode?: string; requestedSchema?: JsonObject }>(params: T): T {
  if ((params.mode ?? 'form') !== 'form') return params;
  const schema = params.requestedSchema;
  if (schema === undefined) return { ...params, requestedSchema: { type: 'object', properties: {} } };
  if (!isJsonObject(schema) || schema.properties !== undefined) return params;
  return { ...params, requestedSchema: { ...schema, properties: {} } };
}

/** `params` of `method` as a client of these features takes them, or why it cannot take them. */
export function shapeInput(method: string, params: JsonObject | undefined, f: RevisionFeatures): ShapedInput {
  if (params === undefined) return { params };
  if (method === 'sampling/createMessage' && !f.samplingTools) return shapeSampling(params, f);
  if (method === 'elicitation/create' && !f.elicitationModes) return shapeElicitation(params);
  return { params };
}

function shapeSampling(params: JsonObject, f: RevisionFeatures): ShapedInput {
  if (params.tools !== undefined || params.toolChoice !== undefined)
    return { refused: `tools and toolChoice exist only from ${LATEST_SHAPES}` };
  if (!Array.isArray(params.messages)) return { params };
  const messages: unknown[] = [];
  for (const [i, message] of params.messages.entries()) {
    if (!isJsonObject(message)) {
      messages.push(message);
      continue;
    }
    const { content, _meta: _dropped, ...rest } = message;
    if (Array.isArray(content) && content.length !== 1)
      return {
        refused: `messages[${i}] holds ${content.length} content blocks; before ${LATEST_SHAPES} a sampling message holds one`,
      };
    const block: unknown = Array.isArray(content) ? content[0] : content;
    const problem = blockProblem(block, f);
    if (problem !== undefined) return { refused: `messages[${i}] holds ${problem}` };
    messages.push({ ...rest, content: isBlock(block) ? shapeContent(block, f) : block });
  }
  return { params: { ...params, messages } as JsonObject };
}

/** Why a sampling message's block does not exist at these features. */
function blockProblem(block: unknown, f: RevisionFeatures): string | undefined {
  const type = isJsonObject(block) ? block.type : undefined;
  if (type === 'tool_use' || type === 'tool_result')
    return `${type} content, which exists only from ${LATEST_SHAPES}`;
  if (type === 'audio' && !f.audioContent) return 'audio content, which exists only from 2025-03-26';
  return undefined;
}

/** The blocks a sampling message of every revision may hold, shaped like a tool result's. */
function isBlock(block: unknown): block is ContentBlock {
  return isJsonObject(block) && (block.type === 'text' || block.type === 'image' || block.type === 'audio');
}

/** 2025-06-18: form mode alone, and its PrimitiveSchemaDefinition (String, Number, Boolean, Enum). */
function shapeElicitation(params: JsonObject): ShapedInput {
  const { mode, url: _url, elicitationId: _id, requestedSchema, ...rest } = params;
  if (mode !== undefined && mode !== 'form')
    return { refused: `mode ${JSON.stringify(mode)} exists only from ${LATEST_SHAPES}` };
  if (!isJsonObject(requestedSchema) || !isJsonObject(requestedSchema.properties))
    return { params: requestedSchema === undefined ? rest : { ...rest, requestedSchema } };
  const { $schema: _schema, properties, ...schema } = requestedSchema;
  const fields: JsonObject = {};
  for (const [name, field] of Object.entries(properties)) {
    const shaped = isJsonObject(field) ? shapeField(field) : field;
    if (typeof shaped === 'string') return { refused: `requestedSchema.properties.${name} is ${shaped}` };
    fields[name] = shaped;
  }
  return { params: { ...rest, requestedSchema: { ...schema, properties: fields } } };
}

/** One field of a 2025-06-18 form, or (a string) why it has none. */
function shapeField(field: JsonObject): JsonObject | string {
  if (field.type === 'array') return `a multi-select (type "array"), which exists only from ${LATEST_SHAPES}`;
  const { default: value, oneOf, anyOf, ...out } = field;
  if (value !== undefined && field.type === 'boolean') out.default = value;
  const options = oneOf ?? anyOf;
  if (options === undefined) return out;
  const choices = Array.isArray(options) ? options : [];
  if (choices.length === 0 || !choices.every((c) => isJsonObject(c) && typeof c.const === 'string'))
    return 'a titled single-select whose options are not { const, title }';
  const titled = choices as Array<{ const: string; title?: unknown }>;
  out.enum = titled.map((c) => c.const);
  out.enumNames = titled.map((c) => (typeof c.title === 'string' ? c.title : c.const));
  return out;
}
