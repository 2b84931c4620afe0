/**
 * Stores behind interfaces, with in-memory defaults. Everything exported here is public API.
 * @module
 */
export {
  MemoryEventStore,
  type EventStore,
  type StoredEvent,
  type MemoryEventStoreOptions,
} from './event-store.js';
export { MemorySessionStore, type SessionStore, type SessionRecord } from './session-store.js';
export {
  type ApprovalStore,
  type PendingListing,
  type SettleResult,
  type AbandonResult,
  type FenceResult,
  type SettleCheck,
  type SettlementWatcher,
  type StoredApproval,
} from './approval-store.js';
export { MemoryApprovalStore, type MemoryApprovalStoreOptions } from './memory-approval-store.js';
export type { PendingPageOptions, PendingPosition } from './pending-position.js';
export { MemoryGrantStore, type GrantStore, type MemoryGrantStoreOptions } from './grant-store.js';
export {
  MemoryAuditStore,
  type AuditListOptions,
  type AuditStore,
  type AuditStoreOptions,
  type MemoryAuditStoreOptions,
} from './audit-store.js';
export {
  type CallChanges,
  type CallLogStore,
  type CallLogStoreOptions,
  type CallProgress,
} from './call-log-store.js';
export { MemoryCallLogStore, type MemoryCallLogStoreOptions } from './memory-call-log-store.js';
export { MemoryMessageBus, type BusSubscriber, type MessageBus } from './message-bus.js';
export type {
  ApprovalOutcome,
  CallDecision,
  CallEnd,
  CallInfo,
  CallOutcome,
  CallRecord,
  CallSummary,
  GatewayAuditRecord,
  GatewayCaller,
  PendingApproval,
} from './gateway-records.js';
