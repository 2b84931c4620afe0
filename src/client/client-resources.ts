/**
 * The client side of the resources feature: every page of `resources/list` and
 * `resources/templates/list`, and `resources/read` with its result checked.
 * @module
 */
import type { RequestOptions } from '../protocol/engine/peer.js';
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import { resourceContentsProblem } from '../protocol/types/content-checks.js';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../protocol/types/resources.js';
import { checkItems } from './checked-items.js';
import type { Requester } from './exchange-options.js';
import { followPages, type Paging } from './follow-pages.js';
import { ownMeta, type RequestMetaOptions } from './request-meta-options.js';

/** Every resource of the server, all pages followed. */
export function listResources(
  request: Requester,
  paging: Paging,
  options?: RequestOptions,
): Promise<Resource[]> {
  return followPages((cursor) => request('resources/list', cursor === undefined ? {} : { cursor }, options), {
    ...paging,
    method: 'resources/list',
    key: 'resources',
    accept: (r): r is Resource => isJsonObject(r) && typeof r.uri === 'string' && typeof r.name === 'string',
  });
}

/** Every resource template of the server, all pages followed. */
export function listResourceTemplates(
  request: Requester,
  paging: Paging,
  options?: RequestOptions,
): Promise<ResourceTemplate[]> {
  const method = 'resources/templates/list';
  return followPages((cursor) => request(method, cursor === undefined ? {} : { cursor }, options), {
    ...paging,
    method,
    key: 'resourceTemplates',
    accept: (t): t is ResourceTemplate =>
      isJsonObject(t) && typeof t.uriTemplate === 'string' && typeof t.name === 'string',
  });
}

/**
 * Reads a resource; a ClientError INVALID_RESULT when the result has no `contents` array, or contents
 * that are not a resource's (a string `uri` with a string `text` or a `blob` of base64 — RFC 4648, padded,
 * its padding bits zero — as a toolwire server checks what it sends; `details: { uri, index, problem }`).
 * `options.meta` is the request's `_meta`, as `callTool`'s.
 */
export async function readResource(
  request: Requester,
  uri: string,
  options?: RequestMetaOptions,
): Promise<ReadResourceResult> {
  const params: JsonObject = { uri };
  if (options?.meta !== undefined) params._meta = ownMeta(options.meta);
  const result = await request('resources/read', params, options);
  checkItems(result, 'contents', resourceContentsProblem, 'resources/read', 'uri', uri);
  return result as unknown as ReadResourceResult;
}
