/**
 * `toolwire/client`: discover and call tools of MCP servers. Everything exported here is public API.
 * @module toolwire/client
 */
export { Client, type ClientOptions, type CallToolOptions, type RequestMetaOptions } from './client.js';
export { ClientError } from './client-error.js';
export type { DroppedReports, ErrorReportLimits } from './error-reports.js';
export type {
  ClientHandlers,
  ElicitationHandler,
  SamplingHandler,
  HandlerContext,
  TiedBy,
} from './client-handlers.js';
export type { ExchangeOptions } from './exchange-options.js';
export type { SubscriptionFilter } from './stateless/listen-stream.js';
export type { RequestOptions } from '../protocol/engine/peer.js';
export type {
  ClientLink,
  OutgoingRequest,
  OutgoingToolCall,
  RequestLink,
  ToolCallLink,
  ToolCallVerdict,
} from './links/client-link.js';
export {
  argumentsDigest,
  canonicalJson,
  matchGlob,
  type ApprovalAction,
  type ApprovalAnswer,
  type ApprovalOptions,
  type ApprovalRequest,
  type ApprovalRule,
  type Approver,
  type ClientAuditDecision,
  type ClientAuditRecord,
  type PolicyDecision,
} from './approval/index.js';
export { ToolTask } from './tasks/tool-task.js';
export type { TaskRequest } from './tasks/client-tasks.js';
export { TASKS_EXTENSION, type TaskInfo, type TaskStatus } from '../protocol/types/tasks.js';
export { SKILLS_EXTENSION, type SkillEntry, type SkillResource } from '../protocol/skills/skill-entry.js';
export type { LoadedSkill, SkillFile } from './skills/loaded-skill.js';
