/**
 * `toolwire/server`: expose tools to MCP clients. Everything exported here is public API.
 * @module
 */
export { Server, type ToolHandle } from './server.js';
export type { ServerOptions } from './server-core.js';
export { ServerSession } from './server-session.js';
export { ServerError } from './server-error.js';
export type { RegistryHandle } from './registry.js';
export type { ToolDefinition, ToolHandler, ToolReturn } from './tool-definition.js';
export type { ToolContext, ClientView } from './tool-context.js';
export {
  text,
  image,
  audio,
  resourceLink,
  embeddedResource,
  toolResult,
  structured,
  toolError,
} from './results.js';
