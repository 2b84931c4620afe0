/**
 * A server feature (tools, resources, prompts, completions, tasks, subscriptions, skills): the
 * capabilities it adds, the request handlers it installs once in the server's table (shared by every
 * session), and what it keeps per session, if anything (`bind`, called for each session).
 * @module
 */
import type { ServerCapabilities } from '../protocol/types/lifecycle.js';
import type { HandlerTable } from './handler-table.js';
import type { SessionView } from './session-view.js';

export interface ServerFeature {
  capabilities(): ServerCapabilities;
  install(handlers: HandlerTable): void;
  bind?(session: SessionView): void;
}
