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
import { blockProblem, contentBlockProblem } from '../protocol/types/content-checks.js';
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
      type === 'tool_use' || type === 'tool_result' ? toolBlockProblem(typed) : contentBlockProblem(typed);
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
 * it must, "for now") and an optional string `name`.
 */
export function checkedRoots(roots: Root[]): ListRootsResult {
  const answer = { roots };
  const problem = listRootsResultProblem(answer) ?? rootsProblem(roots);
  if (problem) throw invalidAnswer('roots', problem);
  return answer;
}

function rootsProblem(roots: Root[]): string | undefined {
  if (roots.length > MAX_ROOTS) return `${roots.length} roots, more than the ${MAX_ROOTS} a client sends`;
  const i = roots.findIndex((root) => !root.uri.startsWith('file://'));
  return i === -1 ? undefined : `roots[${i}].uri must start with file://`;
}
