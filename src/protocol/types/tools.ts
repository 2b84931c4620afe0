/**
 * The tools feature: Tool definitions, annotations, call results.
 * @module
 */
import type { JsonObject } from '../jsonrpc.js';
import type { ContentBlock } from './content.js';
import type { Icon } from './lifecycle.js';

/** Hints about a tool's behaviour (from 2025-03-26). Untrusted unless the server is trusted. */
export interface ToolAnnotations {
  title?: string;
  /** Default false. */
  readOnlyHint?: boolean;
  /** Default true; meaningful only when readOnlyHint is false. */
  destructiveHint?: boolean;
  /** Default false; meaningful only when readOnlyHint is false. */
  idempotentHint?: boolean;
  /** Default true. */
  openWorldHint?: boolean;
}

/** A JSON Schema object as it goes on the wire. */
export interface WireSchema {
  type?: unknown;
  $schema?: string;
  properties?: JsonObject;
  required?: string[];
  [key: string]: unknown;
}

/** A tool as `tools/list` describes it (the union of every revision's fields). */
export interface Tool {
  name: string;
  /** From 2025-06-18. */
  title?: string;
  description?: string;
  inputSchema: WireSchema;
  /** From 2025-06-18. */
  outputSchema?: WireSchema;
  /** From 2025-03-26. */
  annotations?: ToolAnnotations;
  /** From 2025-11-25. */
  icons?: Icon[];
  /** 2025-11-25 only (tasks). */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  /** From 2025-06-18. */
  _meta?: JsonObject;
}

export interface ListToolsResult {
  tools: Tool[];
  nextCursor?: string;
  _meta?: JsonObject;
}

export interface CallToolParams {
  name: string;
  arguments?: JsonObject;
  _meta?: JsonObject;
}

/** A tool call's result. `structuredContent` exists from 2025-06-18. */
export interface CallToolResult<TStructured = unknown> {
  content: ContentBlock[];
  structuredContent?: TStructured;
  isError?: boolean;
  _meta?: JsonObject;
}

/** The 2025-11-25 recommended tool-name form. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** The name to show a person: `title`, then `annotations.title`, then `name`. */
export function displayName(tool: Pick<Tool, 'name' | 'title' | 'annotations'>): string {
  return tool.title ?? tool.annotations?.title ?? tool.name;
}
