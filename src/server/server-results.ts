/**
 * The result type of each method a server serves: what its handler resolves with (before a stateless-era
 * result gets `resultType`, `serverInfo` and its cache hint). A method that may ask the client for input
 * in the stateless era may resolve with an `InputRequiredResult` instead; `tools/call` may resolve with a
 * task (2025-11-25 `CreateTaskResult`, or the 2026-07-28 tasks extension's answer).
 * @module
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { InitializeResult } from '../protocol/types/lifecycle.js';
import type { CoreTask } from '../protocol/types/tasks.js';
import type { CompleteResult, GetPromptResult, ListPromptsResult } from '../protocol/types/prompts.js';
import type {
  ListResourceTemplatesResult,
  ListResourcesResult,
  ReadResourceResult,
} from '../protocol/types/resources.js';
import type { DiscoverResult } from '../protocol/types/stateless.js';
import type { CallToolResult, ListToolsResult } from '../protocol/types/tools.js';
import type { SkillEntry } from '../protocol/skills/skill-entry.js';
import type { InputRequiredResult } from './input-required/input-requests.js';

/** A result with nothing in it (`ping`, `logging/setLevel`, `resources/subscribe`). */
export type EmptyResult = Record<string, never>;

/** A result of the tasks methods, or a task in place of a call's result (2025-11-25: `{ task }`). */
export type TaskResult = JsonObject | { task: CoreTask };

/** What a `tools/call` handler resolves with: the call's result, a question round, or a task. */
export type ToolCallAnswer = CallToolResult | InputRequiredResult | TaskResult;

export interface ServerResults {
  initialize: InitializeResult;
  ping: EmptyResult;
  'logging/setLevel': EmptyResult;
  'server/discover': Omit<DiscoverResult, 'ttlMs' | 'cacheScope' | 'resultType'>;
  'tools/list': ListToolsResult;
  'tools/call': ToolCallAnswer;
  'resources/list': ListResourcesResult;
  'resources/templates/list': ListResourceTemplatesResult;
  'resources/read': ReadResourceResult | InputRequiredResult;
  'resources/subscribe': EmptyResult;
  'resources/unsubscribe': EmptyResult;
  'resources/directory/read': ListResourcesResult;
  'prompts/list': ListPromptsResult;
  'prompts/get': GetPromptResult | InputRequiredResult;
  'completion/complete': CompleteResult;
  'skills/list': { skills: SkillEntry[]; nextCursor?: string };
  'skills/get': { skill: SkillEntry };
  'subscriptions/listen': JsonObject;
  'tasks/get': TaskResult;
  'tasks/update': TaskResult;
  'tasks/cancel': TaskResult;
  'tasks/result': TaskResult;
  'tasks/list': TaskResult;
}
