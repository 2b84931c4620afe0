/**
 * Requests a server sends to a client in the handshake era: elicitation, sampling, roots.
 * @module
 */
import type { JsonObject } from '../jsonrpc.js';
import type { AudioContent, ContentBlock, ImageContent, Role, TextContent } from './content.js';
import type { Tool } from './tools.js';

export interface ElicitParams {
  /** 2025-11-25: 'form' (default) or 'url'. */
  mode?: 'form' | 'url';
  message: string;
  requestedSchema?: JsonObject;
  url?: string;
  elicitationId?: string;
  _meta?: JsonObject;
}

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: { [key: string]: string | number | boolean | string[] };
  _meta?: JsonObject;
}

/** 2025-11-25: a tool call the model made in a sampling result (sampling with `tools`). */
export interface ToolUseContent {
  type: 'tool_use';
  /** Ties the call to its `tool_result`. */
  id: string;
  name: string;
  input: JsonObject;
  _meta?: JsonObject;
}

/** 2025-11-25: the result of a `tool_use`, sent back in the next sampling request's messages. */
export interface ToolResultContent {
  type: 'tool_result';
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: JsonObject;
  isError?: boolean;
  _meta?: JsonObject;
}

/** What a sampling message holds: text, image, audio, and (2025-11-25) tool use and its result. */
export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

export interface SamplingMessage {
  role: Role;
  /** One block, or (2025-11-25) several. */
  content: SamplingContent | SamplingContent[];
  _meta?: JsonObject;
}

/** 2025-11-25: whether the model must, may or must not use the `tools` of a sampling request. */
export interface ToolChoice {
  mode?: 'auto' | 'required' | 'none';
}

export interface CreateMessageParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: JsonObject;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  metadata?: JsonObject;
  /** 2025-11-25: tools the model may call (needs the client's `sampling.tools`). */
  tools?: Tool[];
  toolChoice?: ToolChoice;
  _meta?: JsonObject;
}

export interface CreateMessageResult {
  role: Role;
  content: SamplingContent | SamplingContent[];
  model: string;
  /** `endTurn`, `stopSequence`, `maxTokens`, (2025-11-25) `toolUse`, or another reason. */
  stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | (string & {});
  _meta?: JsonObject;
}

export interface Root {
  uri: string;
  name?: string;
  _meta?: JsonObject;
}

export interface ListRootsResult {
  roots: Root[];
  _meta?: JsonObject;
}
