/**
 * A prompt getter or resource reader whose result is none of its method's (messages that are not a list, a
 * content block of no content type, a role that is neither `user` nor `assistant`, contents without text or
 * blob, data that is not base64): a bug in the server, as a tool's invalid result is. Its owner hears of it
 * (`onPromptBug`, `onResourceBug`, siblings of `onToolBug`: a line on stderr by default) and the client gets
 * -32603 naming what is wrong, never the invalid shape; the server's `onError` is left to failures.
 * @module
 */
import { ErrorCode, ProtocolError } from '../protocol/errors.js';

/** Hears a handler's bug: what is wrong (a sentence naming the handler), and the prompt's name or the URI. */
export type BugReporter = (message: string, name: string) => void;

/**
 * What `normalize` makes of a handler's return value; its TypeError (the value is no valid result) is
 * reported to `report` and thrown as -32603. Only the normalization runs here: an error the handler itself
 * threw is a failure, not a bug, and never passes through.
 */
export function reportedBug<T>(normalize: () => T, report: BugReporter | undefined, name: string): T {
  try {
    return normalize();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    report?.(error.message, name);
    throw new ProtocolError(ErrorCode.InternalError, `Internal error: ${error.message}`);
  }
}
