/**
 * Shapes what toolwire produces (the union of every revision) into what one revision defines.
 * A peer never receives a field or content type its revision lacks.
 *
 * Conversion rules, for content a revision does not have:
 * - `audio` (before 2025-03-26) becomes an embedded `resource` with the same bytes as `blob`, the same
 *   `mimeType`, and the URI `data:<mimeType>;base64,` (the payload lives in `blob`, not in the URI).
 * - `resource_link` (before 2025-06-18) becomes a `text` block: `Resource link: <title or name> <uri>`,
 *   followed by ` (<mimeType>)` and `: <description>` when present.
 * - `structuredContent` (before 2025-06-18) is dropped; if nothing else would remain, its JSON text
 *   becomes the content, so the data is never lost.
 * - Structured output that is not an object (SEP-2106, 2026-07-28) always travels with its JSON in a
 *   text block (added when the result has no text block). A 2025-06-18 / 2025-11-25 peer, whose
 *   revision requires objects, gets the schema and the value wrapped under `result`
 *   (see `handshake-output.ts`); a 2026-07-28 peer gets them as they are.
 * Server capabilities: `completions` from 2025-03-26, `tasks` in 2025-11-25 only, `extensions` in
 * 2026-07-28, and in the handshake era only those extensions that are not stateless-era only.
 * Fields a revision lacks (`title`, `outputSchema`, `icons`, `_meta`, annotations, `execution`,
 * `annotations.lastModified`, `$schema`) are removed, from tools, resources, resource templates, prompts
 * (and their arguments), resource contents and prompt messages alike.
 * @module
 */
import type { JsonObject } from '../jsonrpc.js';
import type { Annotations, ContentBlock } from '../types/content.js';
import type { Icon, Implementation, ServerCapabilities } from '../types/lifecycle.js';
import type { CompleteParams, GetPromptResult, Prompt } from '../types/prompts.js';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../types/resources.js';
import type { CallToolResult, Tool, WireSchema } from '../types/tools.js';
import { TASKS_EXTENSION } from '../types/tasks.js';
import type { RevisionFeatures } from './features.js';
import { wrapOutputSchema, wrapOutputValue, wrapsOutput } from './handshake-output.js';

function shapeAnnotations(annotations: Annotations, f: RevisionFeatures): Annotations {
  if (f.contentMeta || annotations.lastModified === undefined) return annotations;
  const { lastModified: _drop, ...rest } = annotations;
  return rest;
}

function withoutMeta<T extends { _meta?: JsonObject }>(value: T, f: RevisionFeatures): T {
  if (f.contentMeta || value._meta === undefined) return value;
  const { _meta: _drop, ...rest } = value;
  return rest as T;
}

export function shapeContent(block: ContentBlock, f: RevisionFeatures): ContentBlock {
  let out: ContentBlock = block;
  if (block.type === 'audio' && !f.audioContent) {
    out = {
      type: 'resource',
      resource: { uri: `data:${block.mimeType};base64,`, mimeType: block.mimeType, blob: block.data },
      ...(block.annotations ? { annotations: block.annotations } : {}),
    };
  } else if (block.type === 'resource_link' && !f.resourceLinks) {
    let text = `Resource link: ${block.title ?? block.name} ${block.uri}`;
    if (block.mimeType) text += ` (${block.mimeType})`;
    if (block.description) text += `: ${block.description}`;
    out = { type: 'text', text, ...(block.annotations ? { annotations: block.annotations } : {}) };
  } else if (block.type === 'resource_link' && !f.icons && block.icons !== undefined) {
    const { icons: _drop, ...rest } = block;
    out = rest;
  }
  if (out.type === 'resource' && !f.contentMeta && out.resource._meta !== undefined) {
    out = { ...out, resource: withoutMeta(out.resource, f) };
  }
  out = withoutMeta(out, f);
  if (out.annotations && !f.contentMeta && out.annotations.lastModified !== undefined) {
    out = { ...out, annotations: shapeAnnotations(out.annotations, f) };
  }
  return out;
}

function shapeSchema(schema: WireSchema, f: RevisionFeatures): WireSchema {
  if (f.schemaDialect || schema.$schema === undefined) return schema;
  const { $schema: _drop, ...rest } = schema;
  return rest;
}

export function shapeTool(tool: Tool, f: RevisionFeatures): Tool {
  const out = { name: tool.name } as Tool;
  if (tool.title !== undefined && f.titles) out.title = tool.title;
  if (tool.description !== undefined) out.description = tool.description;
  out.inputSchema = shapeSchema(tool.inputSchema, f);
  if (tool.outputSchema !== undefined && f.structuredContent) {
    const wrap = !f.stateless && wrapsOutput(tool.outputSchema, undefined);
    out.outputSchema = shapeSchema(wrap ? wrapOutputSchema(tool.outputSchema) : tool.outputSchema, f);
  }
  if (tool.annotations !== undefined && f.toolAnnotations) out.annotations = tool.annotations;
  if (tool.icons !== undefined && f.icons) out.icons = tool.icons;
  if (tool.execution !== undefined && f.tasks) out.execution = tool.execution;
  if (tool._meta !== undefined && f.contentMeta) out._meta = tool._meta;
  return out;
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A tool result for one revision. `tool` is the definition of the tool that produced it (its
 * `outputSchema` decides whether a handshake-era peer gets the structured output wrapped).
 */
export function shapeCallResult(
  result: CallToolResult,
  f: RevisionFeatures,
  tool?: Pick<Tool, 'outputSchema'>,
): CallToolResult {
  const value = result.structuredContent;
  let content = result.content.map((block) => shapeContent(block, f));
  // SEP-2106: servers using array or primitive structuredContent MUST also emit a TextContent block.
  if (value !== undefined && !isObject(value) && !content.some((block) => block.type === 'text')) {
    content = [...content, { type: 'text', text: JSON.stringify(value) }];
  }
  const out: CallToolResult = { content };
  if (value !== undefined) {
    if (f.stateless) out.structuredContent = value;
    else if (f.structuredContent) {
      // The revision allows only an object: a value that is none is wrapped whatever the schema says (an
      // `isError` result, which is not checked against it, may carry one).
      const wrap = wrapsOutput(tool?.outputSchema, value) || !isObject(value);
      out.structuredContent = wrap ? wrapOutputValue(value) : value;
    } else if (content.length === 0) {
      content = [{ type: 'text', text: JSON.stringify(value) }];
      out.content = content;
    }
  }
  if (result.isError !== undefined) out.isError = result.isError;
  if (result._meta !== undefined) out._meta = result._meta;
  return out;
}

export function shapeImplementation(info: Implementation, f: RevisionFeatures): Implementation {
  const out: Implementation = { name: info.name, version: info.version };
  if (info.title !== undefined && f.titles) out.title = info.title;
  if (f.icons) {
    if (info.description !== undefined) out.description = info.description;
    if (info.icons !== undefined) out.icons = info.icons;
    if (info.websiteUrl !== undefined) out.websiteUrl = info.websiteUrl;
  }
  return out;
}

/** Extensions that exist only in the stateless era (the tasks extension replaces 2025-11-25's core tasks). */
const STATELESS_ONLY_EXTENSIONS: readonly string[] = [TASKS_EXTENSION];

export function shapeServerCapabilities(caps: ServerCapabilities, f: RevisionFeatures): ServerCapabilities {
  const out: ServerCapabilities = { ...caps };
  if (!f.completions) delete out.completions;
  if (!f.tasks) delete out.tasks;
  // `extensions` is a capability of 2026-07-28 (SEP-2133); extensions that serve the handshake era too
  // (skills, SEP-2640: "declare support … in their initialize response") are declared there as well.
  const extensions = out.extensions;
  if (!f.stateless && isObject(extensions)) {
    const kept = Object.entries(extensions as JsonObject).filter(
      ([id]) => !STATELESS_ONLY_EXTENSIONS.includes(id),
    );
    if (kept.length === 0) delete out.extensions;
    else out.extensions = Object.fromEntries(kept);
  }
  return out;
}

/** Progress params: `message` exists from 2025-03-26. */
export function shapeProgress<T extends { message?: string }>(params: T, f: RevisionFeatures): T {
  if (f.progressMessage || params.message === undefined) return params;
  const { message: _drop, ...rest } = params;
  return rest as T;
}

/** The fields resources, templates and prompts share with tools: BaseMetadata `title`, icons, `_meta`. */
interface Described {
  title?: string;
  icons?: Icon[];
  _meta?: JsonObject;
  annotations?: Annotations;
}

function shapeDescribed<T extends Described>(value: T, f: RevisionFeatures): T {
  const out: T = { ...value };
  if (!f.titles) delete out.title;
  if (!f.icons) delete out.icons;
  if (!f.contentMeta) delete out._meta;
  if (out.annotations) out.annotations = shapeAnnotations(out.annotations, f);
  return out;
}

export function shapeResource(resource: Resource, f: RevisionFeatures): Resource {
  return shapeDescribed(resource, f);
}

export function shapeResourceTemplate(template: ResourceTemplate, f: RevisionFeatures): ResourceTemplate {
  return shapeDescribed(template, f);
}

/** `resources/read`: `_meta` on each contents item exists from 2025-06-18. */
export function shapeReadResult(result: ReadResourceResult, f: RevisionFeatures): ReadResourceResult {
  if (f.contentMeta) return result;
  return { ...result, contents: result.contents.map((c) => withoutMeta(c, f)) };
}

export function shapePrompt(prompt: Prompt, f: RevisionFeatures): Prompt {
  const out = shapeDescribed(prompt, f);
  if (out.arguments && !f.titles) out.arguments = out.arguments.map((a) => shapeDescribed(a, f));
  return out;
}

/** `prompts/get`: each message's content is shaped like a content block of a tool result. */
export function shapePromptResult(result: GetPromptResult, f: RevisionFeatures): GetPromptResult {
  return {
    ...result,
    messages: result.messages.map((m) => ({ role: m.role, content: shapeContent(m.content, f) })),
  };
}

/** `completion/complete` params a client sends: `context` and a prompt ref's `title` from 2025-06-18. */
export function shapeCompleteParams(params: CompleteParams, f: RevisionFeatures): CompleteParams {
  const out: CompleteParams = { ...params };
  if (!f.completionContext) delete out.context;
  if (!f.titles && out.ref.type === 'ref/prompt' && out.ref.title !== undefined) {
    const { title: _drop, ...ref } = out.ref;
    out.ref = ref;
  }
  return out;
}
