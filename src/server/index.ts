/**
 * `toolwire/server`: expose tools, resources and prompts to MCP clients. Everything exported here is
 * public API.
 * @module
 */
export {
  Server,
  type ToolHandle,
  type ResourceHandle,
  type ResourceTemplateHandle,
  type PromptHandle,
} from './server.js';
export type { ServerOptions, ServerFeature } from './server-core.js';
export { ServerSession } from './server-session.js';
export { ServerError } from './server-error.js';
export type { RegistryHandle } from './registry.js';
export type { ToolDefinition, ToolHandler, ToolReturn } from './tool-definition.js';
export type { ToolContext, ClientView, InputOptions } from './tool-context.js';
export type {
  ResourceContext,
  ResourceDefinition,
  ResourceReader,
  ResourceTemplateDefinition,
  ResourceTemplateReader,
} from './resources/resource-definition.js';
export {
  resourceNotFound,
  type ResourceReturn,
  type ResourceContentsInput,
} from './resources/read-result.js';
export { UriTemplate } from './resources/uri-template.js';
export type {
  PromptArgumentDefinition,
  PromptContext,
  PromptDefinition,
  PromptGetter,
  PromptReturn,
} from './prompts/prompt-definition.js';
export type { Completer, CompletionContext } from './completions/completer.js';
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
