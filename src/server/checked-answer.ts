/**
 * A client's answer to a server's question (`ctx.elicit()`, `ctx.sample()`, `ctx.listRoots()`), checked
 * before the tool sees it, in either era (a JSON-RPC result, or an `inputResponses` entry): an answer that
 * is not the method's result (an action that is none of the three, content of objects, a sampling result
 * without a model, roots without URIs) rejects with a ServerError INVALID_RESULT naming what is wrong; so
 * does a form accepted with content its `requestedSchema` does not allow.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import type { ElicitParams, ElicitResult } from '../protocol/types/client-features.js';
import { inputResultProblem } from '../protocol/types/input-checks.js';
import { formatIssues } from '../schema/compile.js';
import { formValidator } from '../schema/form-validator.js';
import type { InputMethod } from './input-required/input-requests.js';
import { ServerError } from './server-error.js';

/** `answer`, once its value is checked against what `method` returns. */
export async function checkedAnswer<T>(method: InputMethod, answer: Promise<T>): Promise<T> {
  const result = await answer;
  const problem = inputResultProblem(method, result);
  if (problem)
    throw new ServerError(
      LocalErrorCode.InvalidResult,
      `The client's answer to ${method} is invalid: ${problem}`,
    );
  return result;
}

/**
 * `ask`'s answer to an elicitation, checked: its shape, then (unless `validate` is false) the content a
 * form was accepted with, against the form's `requestedSchema`. The schema is compiled before the question
 * goes out, so one that does not compile fails at once, before anybody fills the form in.
 */
export async function checkedElicitation(
  params: ElicitParams,
  ask: () => Promise<ElicitResult>,
  validate = true,
): Promise<ElicitResult> {
  const form =
    validate && (params.mode ?? 'form') === 'form' && params.requestedSchema !== undefined
      ? formValidator(params.requestedSchema)
      : undefined;
  const result = await checkedAnswer('elicitation/create', ask());
  if (!form || result.action !== 'accept' || result.content === undefined) return result;
  const outcome = form(result.content);
  if (!outcome.ok)
    throw new ServerError(
      LocalErrorCode.InvalidResult,
      `The client's answer to elicitation/create does not match the requested schema: ${formatIssues(outcome.issues)}`,
    );
  return result;
}
