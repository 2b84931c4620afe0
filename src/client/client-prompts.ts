/**
 * The client side of the prompts feature and of completion: every page of `prompts/list`,
 * `prompts/get` and `completion/complete`, with their results checked.
 * @module
 */
import type { RequestOptions } from '../protocol/engine/peer.js';
import { LocalErrorCode } from '../protocol/errors.js';
import { isJsonObject, wireObject, type JsonObject } from '../protocol/jsonrpc.js';
import { contentBlockProblem, dataProblem, isContentType } from '../protocol/types/content-checks.js';
import type { RevisionProfile } from '../protocol/revisions/index.js';
import type {
  CompleteParams,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Prompt,
} from '../protocol/types/prompts.js';
import { checkItems } from './checked-items.js';
import { ClientError } from './client-error.js';
import { followPages, type Paging } from './follow-pages.js';
import type { Requester } from './exchange-options.js';
import { ownMeta, type RequestMetaOptions } from './request-meta-options.js';

/** Every prompt of the server, all pages followed. */
export function listPrompts(request: Requester, paging: Paging, options?: RequestOptions): Promise<Prompt[]> {
  return followPages((cursor) => request('prompts/list', cursor === undefined ? {} : { cursor }, options), {
    ...paging,
    method: 'prompts/list',
    key: 'prompts',
    accept: (p): p is Prompt => isJsonObject(p) && typeof p.name === 'string',
  });
}

/**
 * Gets a prompt with its arguments; a ClientError INVALID_RESULT when the result has no messages array, or
 * a message without a content block, or whose block of a spec type lacks a member it requires or holds
 * binary data that is not base64 (RFC 4648, padded, its padding bits zero; checked as a tool result's:
 * `details: { prompt, index, problem }`). A block of a type this client does not know is kept as it came.
 * `options.meta` is the request's `_meta`, as `callTool`'s.
 */
export async function getPrompt(
  request: Requester,
  name: string,
  args: Record<string, string>,
  options?: RequestMetaOptions,
): Promise<GetPromptResult> {
  const params: JsonObject = { name, arguments: args };
  if (options?.meta !== undefined) params._meta = ownMeta(options.meta);
  const result = await request('prompts/get', params, options);
  checkItems(result, 'messages', messageProblem, 'prompts/get', 'prompt', name);
  return result as unknown as GetPromptResult;
}

/** What is wrong with a received prompt message's content block, as the rest of a sentence; or undefined. */
function messageProblem(message: unknown): string | undefined {
  const content = isJsonObject(message) ? message.content : undefined;
  if (!isJsonObject(content) || typeof content.type !== 'string')
    return 'has no content object with a string type';
  if (!isContentType(content.type)) return undefined;
  const block = content as JsonObject & { type: string };
  const problem = contentBlockProblem(block) ?? dataProblem(block);
  return problem === undefined ? undefined : `has content that is ${problem}`;
}

/**
 * Asks for values of one argument of a prompt (`ref/prompt`) or variable of a resource template
 * (`ref/resource`). `context` (the other arguments' values) reaches only 2025-06-18 and later servers;
 * `options.meta` is the request's `_meta`, as `callTool`'s.
 */
export async function complete(
  request: Requester,
  profile: RevisionProfile,
  ref: CompletionReference,
  argument: { name: string; value: string },
  context: Record<string, string> | undefined,
  options?: RequestMetaOptions,
): Promise<CompleteResult['completion']> {
  const params: CompleteParams = { ref, argument };
  if (context !== undefined) params.context = { arguments: context };
  if (options?.meta !== undefined) params._meta = ownMeta(options.meta);
  const result = await request(
    'completion/complete',
    wireObject(profile.shapeCompleteParams(params)),
    options,
  );
  const completion = result.completion;
  if (!isJsonObject(completion) || !Array.isArray(completion.values)) {
    throw new ClientError(LocalErrorCode.InvalidResult, 'completion/complete returned no completion.values', {
      details: { result },
    });
  }
  return completion as unknown as CompleteResult['completion'];
}
