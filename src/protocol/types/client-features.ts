/**
 * Requests a server sends to a client in the handshake era: elicitation, sampling, roots.
 * @module
 */
import type { JsonObject } from '../jsonrpc.js';
import type { ContentBlock, Role } from './content.js';

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

export interface SamplingMessage {
  role: Role;
  content: ContentBlock | JsonObject;
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
  tools?: JsonObject[];
  toolChoice?: JsonObject;
  _meta?: JsonObject;
}

export interface CreateMessageResult {
  role: Role;
  content: ContentBlock | JsonObject;
  model: string;
  stopReason?: string;
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
