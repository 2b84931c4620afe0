/**
 * The protocol core: JSON-RPC shapes, error families, MCP types by area, revisions and their wire
 * shaping, the transport interface and the JSON-RPC engine. Pure: no Node.js imports.
 * Everything exported here is public API.
 * @module
 */
export {
  ErrorCode,
  LocalErrorCode,
  ProtocolError,
  ToolwireError,
  errorMessage,
  type ErrorCodeValue,
  type ErrorObject,
  type LocalErrorCodeValue,
} from './errors.js';
export {
  isJsonObject,
  wireObject,
  type JsonObject,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcResultResponse,
  type RequestId,
} from './jsonrpc.js';
export { MAX_VALUE_DEPTH, isNestedDeeper } from './json-depth.js';
export type {
  MessageExtra,
  MessageTooLargeDetails,
  OutputBacklog,
  Transport,
  SendOptions,
} from './transport.js';
export type { RequestOptions } from './engine/peer.js';
export { CancellationSource, cancellationOf, signalOf, type Cancellation } from './engine/cancellation.js';
export {
  HANDSHAKE_REVISIONS,
  LATEST_HANDSHAKE_REVISION,
  STATELESS_REVISIONS,
  isHandshakeRevision,
  type HandshakeRevision,
  type StatelessRevision,
  type Revision,
  type Era,
  type ResultShapes,
} from './revisions/index.js';
export type { CacheHint } from './types/stateless.js';
export { UrlElicitationRequiredError, type UrlElicitation } from './types/url-elicitation.js';
export type * from './types/content.js';
export type * from './types/client-features.js';
export type * from './types/resources.js';
export type * from './types/prompts.js';
export { MAX_COMPLETION_VALUES } from './types/prompts.js';
export { LOGGING_LEVELS, declaresCapability } from './types/lifecycle.js';
export type {
  Icon,
  Implementation,
  ClientCapabilities,
  ServerCapabilities,
  InitializeParams,
  InitializeResult,
  LoggingLevel,
  LoggingMessageParams,
  ProgressParams,
  CancelledParams,
} from './types/lifecycle.js';
export {
  displayName,
  type Tool,
  type ToolAnnotations,
  type WireSchema,
  type ListToolsResult,
  type CallToolParams,
  type CallToolResult,
} from './types/tools.js';
