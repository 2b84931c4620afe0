/**
 * What a tool's `UrlElicitationRequiredError` (`-32042`) becomes for the client that called it: the error
 * itself for a handshake-era client that declared `elicitation.url` (2025-11-25); in the stateless era,
 * where `-32042` does not exist, the same elicitations asked through `input_required` (the retry tells
 * whether the user went through with them); for any other client, an `isError` result that says what
 * it lacks (never the URLs, which only a client that shows them to a person should see).
 * @module
 */
import { isHandshakeRevision } from '../../protocol/revisions/index.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import type { UrlElicitationRequiredError } from '../../protocol/types/url-elicitation.js';
import { askUrlElicitations, stillRequired } from '../input-required/url-elicitations-asked.js';
import { toolError } from '../results.js';
import { takesUrlElicitation } from '../hosted-context.js';
import type { ToolContext } from '../tool-context.js';

/** The answer to a call whose handler threw `error` (see the module). */
export function urlElicitationAnswer(
  tool: string,
  ctx: ToolContext,
  error: UrlElicitationRequiredError,
): Promise<CallToolResult> {
  const count = error.elicitations.length;
  const what = count === 1 ? 'a web page' : `${count} web pages`;
  if (isHandshakeRevision(ctx.client.protocolVersion)) {
    if (takesUrlElicitation(ctx.client)) return Promise.reject(error);
    return Promise.resolve(
      toolError(
        `${error.message}: tool ${tool} needs the user to complete ${what} first, and this client cannot ` +
          'be sent one (URL-mode elicitation needs protocol 2025-11-25 and the elicitation.url capability)',
      ),
    );
  }
  // Stateless era: each elicitation a question of this call (unanswered: the attempt ends with
  // input_required; not askable: -32021, the rejection as it is).
  return askUrlElicitations(ctx, error).then((answers) =>
    toolError(stillRequired(`tool ${tool}`, 'call', error, answers)),
  );
}
