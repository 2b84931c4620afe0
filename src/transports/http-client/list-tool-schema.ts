/**
 * The `tools/list` a stateless-era client runs when the server refused a `tools/call` with HeaderMismatch
 * (-32020): the spec has it list the tools to learn the called tool's `inputSchema` (its `x-mcp-header`
 * marks say which `Mcp-Param-*` headers the call needs), then retry the call. The listing is the
 * transport's own request: it carries the call's client `_meta` (version, client info, capabilities, log
 * level) and the request metadata headers, follows `nextCursor` until the tool is found, and its answer
 * never reaches the client.
 * @module
 */
import type { Cancellation } from '../../protocol/engine/cancellation.js';
import { isJsonObject, type JsonObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/types/stateless.js';
import { requestMetadataHeaders } from '../http/request-metadata-headers.js';
import { discardBody } from './http-client-options.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import { readAnswer } from './read-answer.js';

/** Pages read at most before giving up on finding the tool. */
const MAX_PAGES = 20;

/** The `_meta` keys that say who the client is, copied from the call to the listing. */
const CLIENT_META = [META.protocolVersion, META.clientInfo, META.clientCapabilities, META.logLevel];

let counter = 0;

/**
 * The `inputSchema` the server lists for the tool `call` names, or undefined when the listing fails or
 * does not hold it (nothing is thrown: the caller then has the call's own error). `learn` is given every
 * page's result.
 */
export async function listToolSchema(
  endpoint: McpEndpoint,
  cancel: Cancellation,
  call: JsonRpcRequest,
  learn: (result: unknown) => void,
): Promise<unknown> {
  const name = call.params?.name;
  const callMeta = call.params?._meta;
  if (typeof name !== 'string' || !isJsonObject(callMeta)) return undefined;
  const meta: JsonObject = {};
  for (const key of CLIENT_META) if (callMeta[key] !== undefined) meta[key] = callMeta[key];
  let cursor: unknown;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const id = `toolwire-tools-list-${++counter}`;
      const params = typeof cursor === 'string' ? { cursor, _meta: meta } : { _meta: meta };
      const list: JsonRpcRequest = { jsonrpc: '2.0', id, method: 'tools/list', params };
      const response = await endpoint.request('POST', cancel, {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-session-id': undefined,
        ...requestMetadataHeaders(list),
        body: JSON.stringify(list),
      });
      if (!response.ok) {
        await discardBody(response);
        return undefined;
      }
      const answer = await readAnswer(response, id, endpoint.maxMessageSize, 'The answer to tools/list');
      const result = isJsonObject(answer) ? answer.result : undefined;
      if (!isJsonObject(result) || !Array.isArray(result.tools)) return undefined;
      learn(result);
      const tool = (result.tools as unknown[]).find((item) => isJsonObject(item) && item.name === name);
      if (isJsonObject(tool)) return tool.inputSchema;
      cursor = result.nextCursor;
      if (typeof cursor !== 'string') return undefined;
    }
  } catch {
    return undefined; // a network failure, an answer too large or not JSON: the call's error stands
  }
  return undefined;
}
