/**
 * What one `callTool` may add to the client's options (`CallToolOptions`).
 * @module
 */
import type { TaskInfo } from '../protocol/types/tasks.js';
import type { RequestMetaOptions } from './request-meta-options.js';
import type { TaskRequest } from './tasks/client-tasks.js';

export interface CallToolOptions extends RequestMetaOptions {
  /** Check `structuredContent` against the tool's cached outputSchema (default true). */
  validateOutput?: boolean;
  /** This call's cap on the size of its result (default: the client's `maxResultBytes`). */
  maxResultBytes?: number;
  /**
   * Run the call as a task where the server and the tool allow it (`true`, or `{ ttlMs }` to ask for a
   * lifetime): the call resolves once the task ends, its statuses going to `onTaskStatus`. A 2025-11-25
   * tool whose `taskSupport` is `required` always runs as a task, and a 2026-07-28 call refused for want
   * of the tasks extension is sent again declaring it. Elsewhere the call runs as a plain one. For a task,
   * `timeout` bounds each request (the creation, each poll), not the wait for the end; aborting `signal`
   * cancels the task.
   */
  task?: boolean | TaskRequest;
  /** Each status of the task the call runs as, if it runs as one. */
  onTaskStatus?: (task: TaskInfo) => void;
}
