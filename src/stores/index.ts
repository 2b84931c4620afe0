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
