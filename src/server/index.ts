/**
 * `toolwire/server`: expose tools, resources and prompts to MCP clients. Everything exported here is
 * public API.
 * @module toolwire/server
 */
export {
  Server,
  type ToolHandle,
  type ResourceHandle,
  type ResourceTemplateHandle,
  type PromptHandle,
  type SkillHandle,
} from './server.js';
export type { SkillDefinition } from './skills/skill-definition.js';
export { SKILLS_EXTENSION } from '../protocol/skills/skill-entry.js';
export type { ServerOptions } from './server-core.js';
export type { ServerFeature } from './server-feature.js';
export type { ConnectOptions } from './server.js';
export type { Principal } from './auth/principal.js';
export type { AccessPolicy, AccessTarget, ToolAccess } from './auth/access-control.js';
export { DEFAULT_SHUTDOWN_GRACE_MS } from './server-session.js';
export type { ServerConnection } from './session-view.js';
export { ServerError } from './server-error.js';
// Registration throws it for a schema that cannot be used; exported here too so server code can catch it.
export { SchemaError, type SchemaErrorCode } from '../schema/index.js';
export type { RegistryHandle } from './registry.js';
export type {
  ToolDefinition,
  ToolHandler,
  ToolReturn,
  ToolSpec,
  ToolTaskOptions,
  ToolTaskSupport,
} from './tools/tool-definition.js';
export type { TasksOptions } from './tasks/tasks-options.js';
export { TASKS_EXTENSION } from './tasks/task-wire.js';
export {
  InvalidTaskCursor,
  TaskLimitReached,
  type TaskCreateOptions,
  type TaskLimit,
  type TaskChange,
  type TaskInputRequest,
  type TaskPage,
  type TaskPageRequest,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from '../stores/task-store.js';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from '../stores/memory-task-store.js';
export type { ToolContext, ClientView, InputOptions } from './tool-context.js';
export type { RequestHandlerContext } from './request-signal-context.js';
export type {
  ResourceContext,
  ResourceDefinition,
  ResourceReader,
  ResourceSpec,
  ResourceTemplateDefinition,
  ResourceTemplateSpec,
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
  PromptSpec,
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
  type BlockOptions,
} from './results.js';
// The tool-call middleware chain and its security built-ins.
export type { ToolLimits } from './middleware/tool-limits.js';
export type { ToolMiddleware, ToolCall, CalledTool, CallDecision } from './middleware/middleware.js';
export type { ToolChainOptions } from './middleware/tool-chain.js';
export type {
  RequestMiddleware,
  RequestMiddlewareOptions,
  ServerRequest,
} from './middleware/request-chain.js';
export {
  rateLimit,
  DEFAULT_CALLER_RATE_LIMIT,
  type RateLimitOptions,
  type RateLimitedData,
  type LimitKind,
} from './middleware/rate-limit.js';
export type { ConcurrencyOptions } from './middleware/concurrency-limit.js';
export { timeout, type TimeoutOptions } from './middleware/timeout.js';
export { sanitize, REDACTION_MARGIN, type SanitizeOptions } from './middleware/sanitize.js';
export { SECRET_PATTERNS, DEFAULT_SECRET_PATTERNS, REDACTED } from './middleware/redact.js';
export {
  audit,
  jsonLinesSink,
  pinoSink,
  type AuditOptions,
  type AuditRecord,
  type AuditSink,
  type CallOutcome,
} from './middleware/audit.js';
export {
  MemoryRateLimitStore,
  type RateLimitStore,
  type TokenBucket,
  type BucketTake,
  type TakeResult,
  type MemoryRateLimitStoreOptions,
} from '../stores/rate-limit-store.js';
