/**
 * The prompts feature (prompts, their arguments and messages) and argument completion, which serves
 * prompt arguments and resource-template variables alike.
 * @module
 */
import type { JsonObject } from '../jsonrpc.js';
import type { ContentBlock, Role } from './content.js';
import type { Icon } from './lifecycle.js';

export interface PromptArgument {
  name: string;
  /** From 2025-06-18. */
  title?: string;
  description?: string;
  required?: boolean;
}

/** A prompt as `prompts/list` describes it (the union of every revision's fields). */
export interface Prompt {
  name: string;
  /** From 2025-06-18. */
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  /** From 2025-11-25. */
  icons?: Icon[];
  /** From 2025-06-18. */
  _meta?: JsonObject;
}

/** One message of a prompt; its content is shaped per revision like a tool result's. */
export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

export interface ListPromptsResult {
  prompts: Prompt[];
  nextCursor?: string;
  _meta?: JsonObject;
}

export interface GetPromptParams {
  name: string;
  arguments?: Record<string, string>;
  _meta?: JsonObject;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: JsonObject;
}

/** Names a prompt, for completion. */
export interface PromptReference {
  type: 'ref/prompt';
  name: string;
  /** From 2025-06-18. */
  title?: string;
}

/** Names a resource template (or resource) by its URI template, for completion. */
export interface ResourceTemplateReference {
  type: 'ref/resource';
  uri: string;
}

export type CompletionReference = PromptReference | ResourceTemplateReference;

export interface CompleteParams {
  ref: CompletionReference;
  argument: { name: string; value: string };
  /** From 2025-06-18: values of the other arguments or variables, already chosen. */
  context?: { arguments?: Record<string, string> };
  _meta?: JsonObject;
}

/** At most 100 values per result. */
export const MAX_COMPLETION_VALUES = 100;

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: JsonObject;
}
