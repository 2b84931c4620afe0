/**
 * `toolwire/redis`: the stores on Redis (`ioredis`), for servers that run as several processes sharing
 * sessions, resumable streams, rate limits and tasks, and for gateways that share approvals, grants,
 * audit records, call logs and live events. A separate entry point, so that a program that
 * does not use Redis never loads `ioredis`. Everything exported here is public API.
 * @module toolwire/redis
 */
export { RedisStores, redisStores, type RedisStoresOptions } from './redis-stores.js';
export { RedisSessionStore, type RedisSessionStoreOptions } from './redis-session-store.js';
export { RedisEventStore, type RedisEventStoreOptions } from './redis-event-store.js';
export { RedisRateLimitStore, type RedisRateLimitStoreOptions } from './redis-rate-limit-store.js';
export { RedisTaskStore, type RedisTaskStoreOptions } from './redis-task-store.js';
export { RedisApprovalStore, type RedisApprovalStoreOptions } from './redis-approval-store.js';
export { RedisGrantStore, type RedisGrantStoreOptions } from './redis-grant-store.js';
export { RedisAuditStore, type RedisAuditStoreOptions } from './redis-audit-store.js';
export { RedisCallLogStore, type RedisCallLogStoreOptions } from './redis-call-log-store.js';
export { RedisMessageBus, type RedisMessageBusOptions } from './redis-message-bus.js';
export { RedisSubscriber, type ChannelListener } from './redis-subscriber.js';
export { RedisSessionBus } from './redis-session-bus.js';
export type { SessionBus, BusAddress } from './session-bus.js';
export type { RedisStoreOptions } from './redis-options.js';
export { StoreError } from './store-error.js';
