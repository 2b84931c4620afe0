/**
 * `toolwire/gateway`: one MCP endpoint in front of many MCP servers, where every tool call passes a policy
 * and a person can say no. Everything exported here is public API.
 * @module toolwire/gateway
 */
export { Gateway, createGateway } from './gateway.js';
export type { GatewayOptions } from './gateway-options.js';
export type { ParkedCallLimits } from './parked-calls.js';
export type { ExposedToolView, UpstreamView } from './gateway-views.js';
export type {
  GatewayConfig,
  GatewayHttpConfig,
  HttpUpstreamConfig,
  PolicyAction,
  PolicyRule,
  StdioUpstreamConfig,
  UpstreamCommon,
  UpstreamConfig,
  UpstreamOAuthConfig,
} from './gateway-config.js';
export { checkConfig, parseConfigText } from './parse-config.js';
export { GatewayError } from './gateway-error.js';
export { Policy, type PolicyDecision, type PolicyOptions } from './policy.js';
export {
  Approvals,
  MAX_PENDING_APPROVALS,
  MAX_PENDING_APPROVALS_PER_CALLER,
  MAX_PENDING_ARGUMENTS_BYTES,
  MAX_PENDING_ARGUMENTS_BYTES_PER_CALLER,
  type ApprovalDecision,
  type ApprovalOutcome,
  type ApprovalRequest,
  type ApprovalsOptions,
  type GrantGiven,
  type PendingApproval,
} from './approvals.js';
export {
  APPROVALS_PAGE_SIZE,
  LISTED_ARGUMENTS_BYTES,
  MAX_APPROVALS_PAGE_SIZE,
  type ApprovalsListing,
  type ListedApproval,
} from './approvals-listing.js';
export type { GatewayCaller } from './caller.js';
export type { GatewayStores } from './gateway-stores.js';
export {
  type ApprovalStore,
  type PendingListing,
  type SettleResult,
  type AbandonResult,
  type FenceResult,
  type SettleCheck,
  type SettlementWatcher,
  type StoredApproval,
} from '../stores/approval-store.js';
export { MemoryApprovalStore, type MemoryApprovalStoreOptions } from '../stores/memory-approval-store.js';
export type { PendingPageOptions, PendingPosition } from '../stores/pending-position.js';
export {
  MAX_GRANT_MS,
  MemoryGrantStore,
  type GrantStore,
  type MemoryGrantStoreOptions,
} from '../stores/grant-store.js';
export type { AuditListOptions, AuditStoreOptions, MemoryAuditStoreOptions } from '../stores/audit-store.js';
export { MemoryMessageBus, type BusSubscriber, type MessageBus } from '../stores/message-bus.js';
export {
  MemoryAuditStore,
  type AuditStore,
  gatewayJsonLinesSink,
  gatewayPinoSink,
  type CallDecision,
  type CallOutcome,
  type GatewayAuditRecord,
  type GatewayAuditSink,
} from './gateway-audit-sink.js';
export {
  CALL_LOG_GRACE_MS,
  type CallInfo,
  type GatewayEvent,
  type GatewayListener,
  type UpstreamStatus,
} from './gateway-events.js';
export { DecisionApi, type DecisionApiOptions } from './decision-api.js';
export { CallLog } from './call-log.js';
export type {
  CallEnd,
  CallLogOptions,
  CallRecord,
  CallSummary,
  CancelRequest,
  CancelState,
} from './call-log.js';
export {
  type CallChanges,
  type CallLogStore,
  type CallLogStoreOptions,
  type CallProgress,
} from '../stores/call-log-store.js';
export { MemoryCallLogStore, type MemoryCallLogStoreOptions } from '../stores/memory-call-log-store.js';
export { ConsoleSessions, loginLinkId, type ApiCaller, type ConsoleSession } from './console-sessions.js';
export { serveGateway, type GatewayHttpHandle, type ServeGatewayOptions } from './serve-gateway.js';
