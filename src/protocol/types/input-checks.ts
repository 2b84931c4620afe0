/**
 * The shape checks of the questions a server asks a client (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`) and of the client's answers, for both ends: a client checks a question before its handler
 * sees it, and a server checks an answer before its tool does. Each returns what is wrong, in words, or
 * undefined. They look at the members the schema requires and the types of those it names, no deeper (the
 * content of a sampling message is a block with a `type`; the rest is the handler's to read), in time
 * linear in the value. `missingCapabilities` is what a question needs that a client did not declare: a
 * server asks nothing it would refuse, and a client refuses it (-32602) if asked.
 * @module
 */
import { isJsonObject, type JsonObject } from '../jsonrpc.js';
import { echoedName } from '../echoed-name.js';
import { declaresCapability, type ClientCapabilities } from './lifecycle.js';

/**
 * The capabilities a request for `method` needs that `capabilities` lacks (the `requiredCapabilities`
 * of a -32021 error), or undefined when the client declared everything needed. Elicitation: `{}` means
 * form mode only; URL mode needs `elicitation.url`. Sampling with `tools` or `toolChoice` needs
 * `sampling.tools`.
 */
export function missingCapabilities(
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list',
  params: JsonObject | undefined,
  capabilities: ClientCapabilities,
): ClientCapabilities | undefined {
  switch (method) {
    case 'elicitation/create': {
      if (!declaresCapability(capabilities, 'elicitation')) return { elicitation: {} };
      const url = declaresCapability(capabilities.elicitation, 'url');
      if (params?.mode === 'url') return url ? undefined : { elicitation: { url: {} } };
      // Neither mode named (`{}`) is form mode only.
      return !url || declaresCapability(capabilities.elicitation, 'form')
        ? undefined
        : { elicitation: { form: {} } };
    }
    case 'sampling/createMessage': {
      if (!declaresCapability(capabilities, 'sampling')) return { sampling: {} };
      const usesTools = params?.tools !== undefined || params?.toolChoice !== undefined;
      return usesTools && !declaresCapability(capabilities.sampling, 'tools')
        ? { sampling: { tools: {} } }
        : undefined;
    }
    case 'roots/list':
      return declaresCapability(capabilities, 'roots') ? undefined : { roots: {} };
  }
}

/** The types a property of a form's `requestedSchema` may have: flat primitives, and arrays for multi-select. */
const FORM_TYPES: ReadonlySet<unknown> = new Set(['string', 'number', 'integer', 'boolean', 'array']);
const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant']);
const ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel']);

/**
 * The most fields a form may have (toolwire's bound, not the spec's): a client compiles the form to check
 * its answer, ≈1 ms per `pattern` field, and no person fills in more.
 */
export const MAX_FORM_FIELDS = 100;

const isStringArray = (value: unknown): boolean =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/**
 * What is wrong with a form's `requestedSchema` (a flat object of primitive properties). The schema requires
 * it and its `properties`; both may be missing here (a form with no fields: a confirmation), as peers send.
 */
function requestedSchemaProblem(schema: unknown): string | undefined {
  if (schema === undefined) return undefined;
  if (!isJsonObject(schema)) return 'requestedSchema must be an object';
  if (schema.type !== 'object') return 'requestedSchema.type must be "object"';
  const { properties, required } = schema;
  if (properties !== undefined && !isJsonObject(properties))
    return 'requestedSchema.properties must be an object';
  const fields = Object.keys(properties ?? {}).length;
  if (fields > MAX_FORM_FIELDS)
    return `requestedSchema has ${fields} properties, more than the ${MAX_FORM_FIELDS} a form may have`;
  for (const [name, property] of Object.entries(properties ?? {})) {
    if (!isJsonObject(property) || !FORM_TYPES.has(property.type))
      return `requestedSchema.properties.${echoedName(name)} must be a string, number, integer, boolean or array (multi-select) schema`;
  }
  if (required !== undefined && !isStringArray(required))
    return 'requestedSchema.required must be an array of strings';
  return undefined;
}

/**
 * What is wrong with the params of an `elicitation/create`; a URL must be `http:` or `https:` (a
 * `javascript:`, `file:` or `data:` URL is nothing a person should be sent to). Whether the client declared
 * the mode is `missingCapabilities`'s to say.
 */
export function elicitParamsProblem(params: unknown): string | undefined {
  if (!isJsonObject(params)) return 'params must be an object';
  const mode = params.mode ?? 'form';
  if (mode !== 'form' && mode !== 'url') return 'mode must be "form" or "url"';
  if (typeof params.message !== 'string') return 'message must be a string';
  if (mode === 'form') return requestedSchemaProblem(params.requestedSchema);
  // 2025-11-25 requires an elicitationId; 2026-07-28 has none.
  if (params.elicitationId !== undefined && typeof params.elicitationId !== 'string')
    return 'elicitationId must be a string';
  if (typeof params.url !== 'string') return 'url must be a string';
  const url = URL.canParse(params.url) ? new URL(params.url) : undefined;
  if (!url) return 'url must be a valid URL';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'url must be an http: or https: URL';
  return undefined;
}

/** What is wrong with a sampling message's content: a block with a `type`, or (2025-11-25) a list of them. */
function samplingContentProblem(content: unknown, where: string): string | undefined {
  const blocks = Array.isArray(content) ? content : [content];
  for (const block of blocks)
    if (!isJsonObject(block) || typeof block.type !== 'string')
      return `${where}.content must be a content block (an object with a string "type") or a list of them`;
  return undefined;
}

/** What is wrong with the params of a `sampling/createMessage` (tools need `sampling.tools`: see `missingCapabilities`). */
export function createMessageParamsProblem(params: unknown): string | undefined {
  if (!isJsonObject(params)) return 'params must be an object';
  const { messages, maxTokens, systemPrompt } = params;
  if (!Array.isArray(messages)) return 'messages must be an array';
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    if (!isJsonObject(message) || !ROLES.has(message.role))
      return `messages[${i}] must be an object whose role is "user" or "assistant"`;
    const problem = samplingContentProblem(message.content, `messages[${i}]`);
    if (problem) return problem;
  }
  if (typeof maxTokens !== 'number' || !(maxTokens > 0)) return 'maxTokens must be a positive number';
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string') return 'systemPrompt must be a string';
  return undefined;
}

/** What is wrong with an answer to `elicitation/create`: an action, and content of primitives (or string lists). */
export function elicitResultProblem(result: unknown): string | undefined {
  if (!isJsonObject(result)) return 'it must be an object';
  if (!ACTIONS.has(result.action)) return 'action must be "accept", "decline" or "cancel"';
  const { content } = result;
  if (content === undefined) return undefined;
  if (!isJsonObject(content)) return 'content must be an object';
  for (const [name, value] of Object.entries(content)) {
    const type = typeof value;
    if (type !== 'string' && type !== 'number' && type !== 'boolean' && !isStringArray(value))
      return `content.${echoedName(name)} must be a string, number, boolean or array of strings`;
  }
  return undefined;
}

/** What is wrong with an answer to `sampling/createMessage`. */
export function createMessageResultProblem(result: unknown): string | undefined {
  if (!isJsonObject(result)) return 'it must be an object';
  if (!ROLES.has(result.role)) return 'role must be "user" or "assistant"';
  if (typeof result.model !== 'string') return 'model must be a string';
  if (result.stopReason !== undefined && typeof result.stopReason !== 'string')
    return 'stopReason must be a string';
  return samplingContentProblem(result.content, 'the result');
}

/** What is wrong with an answer to `roots/list`. */
export function listRootsResultProblem(result: unknown): string | undefined {
  if (!isJsonObject(result) || !Array.isArray(result.roots)) return 'roots must be an array';
  for (let i = 0; i < result.roots.length; i++) {
    const root: unknown = result.roots[i];
    if (!isJsonObject(root) || typeof root.uri !== 'string') return `roots[${i}].uri must be a string`;
    if (root.name !== undefined && typeof root.name !== 'string') return `roots[${i}].name must be a string`;
  }
  return undefined;
}

/** What is wrong with an answer to `method`, one of the three questions (undefined for any other method). */
export function inputResultProblem(method: string, result: unknown): string | undefined {
  switch (method) {
    case 'elicitation/create':
      return elicitResultProblem(result);
    case 'sampling/createMessage':
      return createMessageResultProblem(result);
    case 'roots/list':
      return listRootsResultProblem(result);
    default:
      return undefined;
  }
}
