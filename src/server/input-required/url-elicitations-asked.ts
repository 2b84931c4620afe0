/**
 * The stateless era has no `-32042`: a handler's `UrlElicitationRequiredError` is asked instead, each of
 * its elicitations a question of the request keyed by its id, all at once (one `input_required` lists
 * every one the client has not answered yet). The retry tells whether the user went through with them.
 * Tools make an `isError` result of what the user said (url-elicitation-answer.ts); prompts and resource
 * reads, which have none, an error.
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import type { ElicitResult } from '../../protocol/types/client-features.js';
import { UrlElicitationRequiredError } from '../../protocol/types/url-elicitation.js';
import type { ToolContext } from '../tool-context.js';

/**
 * Asks the user `error`'s elicitations through `ctx` (a stateless-era request's context). Resolves with
 * the answers once every one is answered; rejects as the asks do (unanswered: the attempt ends with
 * `input_required`; not askable: -32021).
 */
export function askUrlElicitations(
  ctx: Pick<ToolContext, 'elicit'>,
  error: UrlElicitationRequiredError,
): Promise<ElicitResult[]> {
  return Promise.all(
    error.elicitations.map(({ elicitationId, ...params }) =>
      ctx.elicit(params, { key: `url-${elicitationId}` }),
    ),
  );
}

/**
 * What stops a request once the user answered every elicitation and the handler still needs them: the
 * user declined or cancelled one, or said it was done while the handler still finds it undone. Asking
 * again would ask the same person the same thing in a loop; the client may retry. `what` names the
 * handler in lower case (`tool x`), `retry` what the client would retry (`call`, `request`).
 */
export function stillRequired(
  what: string,
  retry: string,
  error: UrlElicitationRequiredError,
  answers: readonly ElicitResult[],
): string {
  const refused = answers.find((a) => a.action !== 'accept');
  if (refused) {
    const named = what.charAt(0).toUpperCase() + what.slice(1);
    return `${named} needs the user to complete a web page first, and the user chose to ${refused.action}`;
  }
  return `${error.message}: ${what} still finds it not done after the user accepted; retry the ${retry} once it is`;
}

/**
 * A stateless-era prompt get or resource read whose handler threw `error`: its elicitations asked; once
 * answered, -32603 saying what the user did (the era has no code of its own for it).
 */
export function urlElicitationsRequired(
  what: string,
  ctx: Pick<ToolContext, 'elicit'>,
  error: UrlElicitationRequiredError,
): Promise<never> {
  return askUrlElicitations(ctx, error).then((answers) => {
    throw new ProtocolError(ErrorCode.InternalError, stillRequired(what, 'request', error, answers));
  });
}

/**
 * Runs a stateless-era prompt getter or resource reader (`run`): a `UrlElicitationRequiredError` it
 * throws is asked as {@link urlElicitationsRequired} says; any other outcome is its own.
 */
export async function askingUrlElicitations<T>(
  what: string,
  ctx: Pick<ToolContext, 'elicit'>,
  run: () => T | PromiseLike<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof UrlElicitationRequiredError) return urlElicitationsRequired(what, ctx, error);
    throw error;
  }
}
