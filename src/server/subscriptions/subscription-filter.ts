/**
 * The filter of a `subscriptions/listen` request (2026-07-28): the notifications a client opts in to,
 * read from the request's params (-32602 when malformed), and the subset a server honours, which is
 * what its capabilities advertise.
 * @module
 */
import type { SubscriptionFilter } from '../../protocol/types/stateless.js';
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import type { ServerCapabilities } from '../../protocol/types/lifecycle.js';

/** The most task ids one listen request may name. */
export const MAX_LISTENED_TASKS = 100;

type ListChangedKey = 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged';

/** The filter key that opts in to each `list_changed` notification. */
export const LIST_CHANGED_KEYS: Readonly<Record<string, ListChangedKey>> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

const FLAGS: readonly ListChangedKey[] = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'];

const invalid = (message: string) => new ProtocolError(ErrorCode.InvalidParams, `Invalid params: ${message}`);

/** The filter a listen request asks for; unknown keys are ignored (never honoured). */
export type { SubscriptionFilter };

/** Resources one session (or listen stream) may be subscribed to at once: past this, a subscription is refused. */
export const MAX_SUBSCRIPTIONS = 1_000;
/** The longest URI that may be subscribed to, in characters. */
export const MAX_SUBSCRIBED_URI_LENGTH = 4_096;
/**
 * The characters of the URIs a session (or listen stream) subscribes to, all told: past this, a subscription
 * is refused. 1,000 URIs of 256 characters on average, so that a session's record (in a shared store, read
 * whole by each instance that takes the session up) holds 256 Ki characters of them, not 1,000 × 4,096 (4 Mi).
 */
export const MAX_SUBSCRIBED_CHARACTERS = 256 * 1024;

export function parseSubscriptionFilter(params: JsonObject): SubscriptionFilter {
  const value = params.notifications;
  if (!isJsonObject(value)) throw invalid('notifications must be an object');
  const filter: SubscriptionFilter = {};
  for (const key of FLAGS) {
    const flag = value[key];
    if (flag === undefined) continue;
    if (typeof flag !== 'boolean') throw invalid(`notifications.${echoedName(key)} must be a boolean`);
    filter[key] = flag;
  }
  const uris = value.resourceSubscriptions;
  if (uris !== undefined) {
    if (
      !Array.isArray(uris) ||
      uris.length > MAX_SUBSCRIPTIONS ||
      !uris.every((uri) => typeof uri === 'string' && uri.length <= MAX_SUBSCRIBED_URI_LENGTH)
    ) {
      throw invalid(
        `notifications.resourceSubscriptions must be an array of at most ${MAX_SUBSCRIPTIONS} uris of at most ${MAX_SUBSCRIBED_URI_LENGTH} characters`,
      );
    }
    const unique = [...new Set(uris as string[])];
    if (unique.reduce((characters, uri) => characters + uri.length, 0) > MAX_SUBSCRIBED_CHARACTERS) {
      throw invalid(
        `notifications.resourceSubscriptions must hold at most ${MAX_SUBSCRIBED_CHARACTERS} characters of uris in all`,
      );
    }
    filter.resourceSubscriptions = unique;
  }
  const taskIds = value.taskIds;
  if (taskIds !== undefined) {
    if (
      !Array.isArray(taskIds) ||
      taskIds.length > MAX_LISTENED_TASKS ||
      !taskIds.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 256)
    ) {
      throw invalid(`notifications.taskIds must be an array of at most ${MAX_LISTENED_TASKS} task ids`);
    }
    filter.taskIds = [...new Set(taskIds as string[])];
  }
  return filter;
}

/**
 * What the server agrees to send: each requested type its capabilities advertise (tools always;
 * prompts and resources once such a feature exists). Requested URIs are honoured as given, known or not:
 * a resource may appear later, and `resources/updated` may name a sub-resource. Task ids are the tasks
 * feature's to honour (see `Subscriptions`).
 */
export function honouredFilter(
  requested: SubscriptionFilter,
  capabilities: ServerCapabilities,
): SubscriptionFilter {
  const supported: Record<ListChangedKey, boolean> = {
    toolsListChanged: capabilities.tools?.listChanged === true,
    promptsListChanged: capabilities.prompts?.listChanged === true,
    resourcesListChanged: capabilities.resources?.listChanged === true,
  };
  const honoured: SubscriptionFilter = {};
  for (const key of FLAGS) if (requested[key] === true && supported[key]) honoured[key] = true;
  if (requested.resourceSubscriptions && capabilities.resources?.subscribe === true) {
    honoured.resourceSubscriptions = [...requested.resourceSubscriptions];
  }
  return honoured;
}
