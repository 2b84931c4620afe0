/**
 * A client's answer to a server's question (`ctx.elicit()`, `ctx.sample()`, `ctx.listRoots()`), checked
 * before the tool sees it, in either era (a JSON-RPC result, or an `inputResponses` entry): an answer that
 * is not the method's result (an action that is none of the three, content of objects, a sampling result
 * without a model, roots without URIs) rejects with a ServerError INVALID_RESULT naming what is wrong.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import {
  createMessageResultProblem,
  elicitResultProblem,
  listRootsResultProblem,
} from '../protocol/types/input-checks.js';
import type { InputMethod } from './input-required/input-requests.js';
import { ServerError } from './server-error.js';

const PROBLEM: Record<InputMethod, (result: unknown) => string | undefined> = {
  'elicitation/create': elicitResultProblem,
  'sampling/createMessage': createMessageResultProblem,
  'roots/list': listRootsResultProblem,
};

/** `answer`, once its value is checked against what `method` returns. */
export async function checkedAnswer<T>(method: InputMethod, answer: Promise<T>): Promise<T> {
  const result = await answer;
  const problem = PROBLEM[method](result);
  if (problem)
    throw new ServerError(
      LocalErrorCode.InvalidResult,
      `The client's answer to ${method} is invalid: ${problem}`,
    );
  return result;
}
