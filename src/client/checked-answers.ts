/**
 * The client's checks of its own handlers' answers before they are sent: what the spec allows as the
 * result of `elicitation/create` (and, with a form, what the form allows), `sampling/createMessage` and
 * `roots/list`, in the revision spoken. An answer the spec does not allow is a ClientError INVALID_RESULT
 * and nothing is sent: the server gets -32603 (handshake era), the call fails (stateless era).
 * @module
 */
import type {
  CreateMessageResult,
  ElicitResult,
  ListRootsResult,
  Root,
} from '../protocol/types/client-features.js';
import { ErrorCode, LocalErrorCode, ProtocolError, errorMessage } from '../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import { blockProblem, contentBlockProblem, dataProblem } from '../protocol/types/content-checks.js';
import {
  createMessageResultProblem,
  elicitResultProblem,
  listRootsResultProblem,
} from '../protocol/types/input-checks.js';
import type { RevisionProfile } from '../protocol/revisions/index.js';
import { formatIssues, type Validator } from '../schema/compile.js';
import { formValidator } from '../schema/form-validator.js';
import { ClientError } from './client-error.js';

/** The most roots a client sends (toolwire's bound, not the spec's): a server reads every one. */
export const MAX_ROOTS = 1000;

/** The longest root `uri` and `name` a client sends, in UTF-16 units (as a server's subscribed URIs). */
export const MAX_ROOT_URI_LENGTH = 4096;
export const MAX_ROOT_NAME_LENGTH = 1024;

/**
 * The most content blocks a sampling answer holds, counting those inside its `tool_result` blocks
 * (toolwire's bound, not the spec's): a server reads every one.
 */
export const MAX_SAMPLING_BLOCKS = 1000;

function invalidAnswer(handler: 'elicitation' | 'sampling' | 'roots', problem: string): ClientError {
  return new ClientError(
    LocalErrorCode.InvalidResult,
    `The ${handler} handler's answer is invalid: ${problem}`,
  );
}

/**
 * The validator of a form's `requestedSchema`; compiled when content is to be checked against it (so a
 * server's forms cost the client only when the user fills one in), once per schema. A schema that does not
 * compile (a `pattern` that is no regular expression, say) is the server's -32602.
 */
function compiledForm(params: JsonObject): Validator<unknown> | undefined {
  if ((params.mode ?? 'form') !== 'form' || !isJsonObject(params.requestedSchema)) return undefined;
  try {
    return formValidator(params.requestedSchema);
  } catch (error) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Invalid params for elicitation/create: requestedSchema does not compile: ${errorMessage(error)}`,
    );
  }
}

/**
 * The elicitation handler's answer, unless it is none the spec allows: an action other than the three,
 * content of anything but primitives and string lists, content the form's schema does not allow.
 */
export function checkedElicitation(params: JsonObject, answer: ElicitResult): ElicitResult {
  const problem = elicitResultProblem(answer);
  if (problem) throw invalidAnswer('elicitation', problem);
  const content = answer.action === 'accept' ? answer.content : undefined;
  const form = content === undefined ? undefined : compiledForm(params);
  if (form) {
    const outcome = form(content);
    if (!outcome.ok)
      throw invalidAnswer(
        'elicitation',
        `content does not match the requested schema: ${formatIssues(outcome.issues)}`,
      );
  }
  return answer;
}

/** What is wrong with a `tool_use` or `tool_result` block (2025-11-25), as the schema has them. */
function toolBlockProblem(block: JsonObject): string | undefined {
  if (block.type === 'tool_use')
    return typeof block.id === 'string' && typeof block.name === 'string' && isJsonObject(block.input)
      ? undefined
      : 'a tool_use block without a string id and name and an object input';
  if (typeof block.toolUseId !== 'string') return 'a tool_result block without a string toolUseId';
  if (!Array.isArray(block.content)) return 'a tool_result block whose content is not a list';
  for (const [i, inner] of block.content.entries()) {
    const problem = blockProblem(inner);
    if (problem) return `a tool_result block whose content[${i}] ${problem}`;
  }
  if (block.structuredContent !== undefined && !isJsonObject(block.structuredContent))
    return 'a tool_result block whose structuredContent is not an object';
  if (block.isError !== undefined && typeof block.isError !== 'boolean')
    return 'a tool_result block whose isError is not a boolean';
  return undefined;
}

/** How many blocks `blocks` holds, with those inside its `tool_result` blocks (one level: they hold no more). */
function blockCount(blocks: readonly unknown[]): number {
  let count = blocks.length;
  for (const block of blocks)
    if (isJsonObject(block) && block.type === 'tool_result' && Array.isArray(block.content))
      count += block.content.length;
  return count;
}

/**
 * What is wrong with a sampling answer's content in the revision of `profile` (the latest when unknown):
 * one block before 2025-11-25 (text, image, and audio from 2025-03-26), one or a list from 2025-11-25 on,
 * where `tool_use` and `tool_result` blocks exist too; each with the members its type requires.
 */
function samplingContentProblem(content: unknown, profile: RevisionProfile | undefined): string | undefined {
  const lists = profile?.features.samplingTools ?? true;
  const audio = profile?.features.audioContent ?? true;
  const version = profile?.version ?? 'the latest protocol version';
  if (Array.isArray(content) && !lists)
    return `content must be one block in protocol version ${version}, not a list`;
  const blocks: unknown[] = Array.isArray(content) ? content : [content];
  const count = blockCount(blocks);
  if (count > MAX_SAMPLING_BLOCKS)
    return `content holds ${count} blocks, more than the ${MAX_SAMPLING_BLOCKS} a sampling answer may hold`;
  for (const [i, block] of blocks.entries()) {
    const where = Array.isArray(content) ? `content[${i}]` : 'content';
    const type = isJsonObject(block) ? block.type : undefined;
    const known =
      type === 'text' ||
      type === 'image' ||
      (type === 'audio' && audio) ||
      ((type === 'tool_use' || type === 'tool_result') && lists);
    if (!known)
      return `${where} has type ${JSON.stringify(type)}, which is no sampling content type in ${version}`;
    const typed = block as JsonObject & { type: string };
    const problem =
      type === 'tool_use' || type === 'tool_result'
        ? toolBlockProblem(typed)
        : (contentBlockProblem(typed) ?? dataProblem(typed));
    if (problem) return `${where} is ${problem}`;
  }
  return undefined;
}

/**
 * The sampling handler's answer, unless it is no `CreateMessageResult` of the revision spoken (`profile`;
 * the latest when unknown): a role, a string model, content as above.
 */
export function checkedSampling(
  answer: CreateMessageResult,
  profile: RevisionProfile | undefined,
): CreateMessageResult {
  const problem = createMessageResultProblem(answer) ?? samplingContentProblem(answer.content, profile);
  if (problem) throw invalidAnswer('sampling', problem);
  return answer;
}

/**
 * The roots handler's answer as a `ListRootsResult`, unless its roots are not a list of at most
 * {@link MAX_ROOTS} objects, each with a string `uri` starting with `file://` (as every revision says
 * it must, "for now") and an optional string `name`, at most {@link MAX_ROOT_URI_LENGTH} and
 * {@link MAX_ROOT_NAME_LENGTH} characters long.
 */
export function checkedRoots(roots: Root[]): ListRootsResult {
  const answer = { roots };
  const problem = listRootsResultProblem(answer) ?? rootsProblem(roots);
  if (problem) throw invalidAnswer('roots', problem);
  return answer;
}

function rootsProblem(roots: Root[]): string | undefined {
  if (roots.length > MAX_ROOTS) return `${roots.length} roots, more than the ${MAX_ROOTS} a client sends`;
  for (const [i, { uri, name }] of roots.entries()) {
    if (!uri.startsWith('file://')) return `roots[${i}].uri must start with file://`;
    if (uri.length > MAX_ROOT_URI_LENGTH)
      return `roots[${i}].uri is ${uri.length} characters long, more than the ${MAX_ROOT_URI_LENGTH} a root's uri may be`;
    if (name !== undefined && name.length > MAX_ROOT_NAME_LENGTH)
      return `roots[${i}].name is ${name.length} characters long, more than the ${MAX_ROOT_NAME_LENGTH} a root's name may be`;
  }
  return undefined;
}
